"""``--plugin-dir`` with Anthropic's explanatory-output-style (its hooks.json as published; the
handler script is ours, as the shared fixtures hold no third-party code), hooks from plugins
only where they may run, and hostile plugins: names that traverse, links out, huge files,
escape sequences, a hooks.json in an untrusted project."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pi_cli.shell.plugins.commands import plugin_words
from pi_cli.shell.plugins.components import MAX_FILE_BYTES, build_index
from pi_cli.shell.plugins.manifest import PluginError
from tests.agent_core.scripted_stream import reply, text
from tests.shell.helpers import make_shell, notices
from tests.shell.plugins.conftest import OFFICIAL, copy_tree

HANDLER = """#!/usr/bin/env bash
printf '%s\\n' "$CLAUDE_PLUGIN_ROOT" > "$CLAUDE_PLUGIN_ROOT/../ran"
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "SessionStart",
 "additionalContext": "You are in 'explanatory' output style mode."}}
JSON
"""


def explanatory(tmp_path: Path) -> Path:
    if not OFFICIAL.is_dir():
        pytest.skip("../shared/fixtures/i25 is not available")
    root = copy_tree(OFFICIAL, tmp_path / "plugins" / "explanatory-output-style")
    script = root / "hooks-handlers" / "session-start.sh"
    script.parent.mkdir()
    script.write_text(HANDLER)
    return root


async def test_plugin_dir_session_start_hook_adds_its_context(
    project: Path, tmp_path: Path
) -> None:
    root = explanatory(tmp_path)
    shell, stream, recorder = make_shell(project, reply(text("ok")), plugin_dirs=[str(root)])
    await shell.submit("hello")
    await shell.wait_idle()
    texts = stream.user_texts(0)
    assert any("explanatory' output style mode" in t for t in texts), texts
    assert (root.parent / "ran").read_text().strip() == str(root.resolve())
    assert not notices(recorder, "warning")


def hostile(tmp_path: Path, manifest: dict, files: dict[str, str | bytes]) -> Path:
    root = tmp_path / "evil"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps(manifest))
    for rel, body in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body if isinstance(body, bytes) else body.encode())
    return root


@pytest.mark.parametrize("name", ["../../etc", "a/b", "..", "x" * 65, "-rf", "\x1b]52;c;Zm9v\x07"])
def test_a_plugin_name_that_could_traverse_is_refused(tmp_path: Path, name: str) -> None:
    root = hostile(tmp_path, {"name": name}, {})
    with pytest.raises(PluginError, match="is not usable"):
        build_index(root)


def test_hostile_components_are_named_not_loaded(tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("---\ndescription: stolen\n---\nsecret\n")
    root = hostile(
        tmp_path,
        {
            "name": "evil",
            "description": "\x1b[2J\x1b]0;pwned\x07Nice plugin\u202e",
            "commands": ["../secret.md", "/etc/passwd", "./commands/"],
            "hooks": "../../hooks.json",
        },
        {
            "commands/ok.md": "---\ndescription: \x1b[31mred\x1b[0m alert\n---\nDo it\n",
            "commands/huge.md": "x" * (MAX_FILE_BYTES + 1),
            "commands/bad name.md": "x",
            "commands/..hidden.md": "x",
        },
    )
    os.symlink(outside, root / "commands" / "linked.md")
    index = build_index(root)
    assert index["description"] == "Nice plugin"
    assert [c["name"] for c in index["commands"]] == ["ok"]
    assert index["commands"][0]["description"] == "red alert"
    problems = "\n".join(index["problems"])
    assert "'../secret.md' leads outside the plugin" in problems
    assert "'/etc/passwd' is not a relative path" in problems
    assert "'../../hooks.json' leads outside the plugin" in problems
    assert "command huge: larger than 256 KiB" in problems
    assert "'bad name.md' skipped" in problems
    assert index["hooks"] == {}


async def test_hooks_of_a_plugin_enabled_by_an_untrusted_project_never_run(
    project: Path, tmp_path: Path, pi_home: Path
) -> None:
    """An installed plugin enabled by the project's own settings: nothing of it runs until the
    folder is trusted; the trust notice names the setting."""
    root = explanatory(tmp_path)
    # Install through a local folder marketplace holding this plugin.
    market = tmp_path / "market"
    (market / ".claude-plugin").mkdir(parents=True)
    (market / ".claude-plugin" / "marketplace.json").write_text(
        json.dumps(
            {
                "name": "local-m",
                "plugins": [{"name": root.name, "source": str(os.path.relpath(root, market))}],
            }
        )
    )
    plugin_words(["marketplace", "add", str(market)], project)
    with pytest.raises(PluginError, match="leads outside"):  # a source must stay inside it
        plugin_words(["install", f"{root.name}@local-m"], project)
    copy_tree(root, market / "plugins" / root.name)
    (market / ".claude-plugin" / "marketplace.json").write_text(
        json.dumps(
            {
                "name": "local-m",
                "plugins": [{"name": root.name, "source": f"./plugins/{root.name}"}],
            }
        )
    )
    plugin_words(["install", f"{root.name}@local-m", "--scope", "project"], project)
    records = json.loads((pi_home / "plugins" / "installed.json").read_text())["plugins"]
    installed_root = Path(records[f"{root.name}@local-m"]["path"])
    shell, stream, recorder = make_shell(project, reply(text("ok")))
    await shell.submit("hello")
    await shell.wait_idle()
    assert not (installed_root.parent / "ran").exists()
    assert not any("output style" in t for t in stream.user_texts(0))
    assert any("enabledPlugins" in n for n in notices(recorder, "warning"))
    # Trusted, the same plugin's hook runs (so the check above could fail).
    shell, stream, _ = make_shell(project, reply(text("ok")), trust=True)
    await shell.submit("hello")
    await shell.wait_idle()
    assert (installed_root.parent / "ran").exists()
    assert any("output style" in t for t in stream.user_texts(0))
