"""``disableBypassPermissionsMode: "disable"`` in any settings layer (Claude Code's own strict
settings file in a repository included, trusted or not): skipping permissions is refused with
a clear error, on the command line and when switching modes later."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from tests.agent_core.scripted_stream import ScriptedStream
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.permissions.conftest import RunPi, fake_args

STRICT_NAME = "shared/fixtures/realwire/wave3/claude-code/settings-strict.json"
# shared/ lies beside the checkout (CI), or beside a folder of worktrees.
STRICT = next(
    (p / STRICT_NAME for p in Path(__file__).resolve().parents[3:] if (p / STRICT_NAME).exists()),
    Path(STRICT_NAME),
)
REFUSED = "bypassPermissions mode is disabled by disableBypassPermissionsMode in"


def _strict(project: Path) -> None:
    if not STRICT.exists():
        pytest.skip(f"{STRICT} (Claude Code's settings-strict.json) is not beside the checkout")
    (project / ".claude").mkdir(exist_ok=True)
    shutil.copy(STRICT, project / ".claude" / "settings.json")


@pytest.mark.parametrize(
    "flags", [["--dangerously-skip-permissions"], ["--permission-mode", "yolo"],
              ["--permission-mode", "bypassPermissions"]],
)  # fmt: skip
def test_claude_codes_strict_settings_refuse_skipping_permissions(
    run_pi: RunPi, project: Path, server: FakeProviderServer, flags: list[str]
) -> None:
    _strict(project)
    server.add(Turn(tool_calls=[ToolCallSpec("bash", {"command": "touch made"}, id="b1")]))
    result = run_pi(*fake_args(server, *flags), "go")
    assert result.returncode != 0 and not (project / "made").exists()
    assert f"{REFUSED} .claude/settings.json" in result.stderr
    assert "Traceback" not in result.stderr
    assert server.requests == []  # refused before anything ran


@pytest.mark.parametrize(
    ("where", "data"),
    [
        ("project", {"permissions": {"disableBypassPermissionsMode": "disable"}}),
        ("project", {"disableBypassPermissionsMode": "disable"}),
        ("user", {"permissions": {"disableBypassPermissionsMode": "disable"}}),
    ],
)
def test_pi_settings_refuse_it_too_and_so_does_switching_later(
    tmp_path: Path, pi_home: Path, where: str, data: dict
) -> None:
    work = tmp_path / "work"
    (work / ".pi").mkdir(parents=True)
    target = work / ".pi" / "settings.json" if where == "project" else pi_home / "settings.json"
    target.write_text(json.dumps(data))
    from pi_cli.shell.models.setup import ConfigError

    with pytest.raises(ConfigError, match=REFUSED):
        CodingAgent(
            ShellOptions(cwd=work, skip_permissions=True, tools=[], stream_fn=ScriptedStream())
        )
    shell = CodingAgent(ShellOptions(cwd=work, tools=[], stream_fn=ScriptedStream()))
    from pi_cli.shell.permissions.modes import ModeError

    with pytest.raises(ModeError, match=REFUSED):
        shell.permissions.set_mode("yolo")
    assert shell.permissions.mode != "bypassPermissions"


async def test_the_slash_command_says_why(tmp_path: Path, pi_home: Path) -> None:
    (pi_home / "settings.json").write_text(
        json.dumps({"permissions": {"disableBypassPermissionsMode": "disable"}})
    )
    work = tmp_path / "work"
    work.mkdir()
    shell = CodingAgent(ShellOptions(cwd=work, tools=[], stream_fn=ScriptedStream()))
    result = await shell.submit("/permissions yolo")
    assert result is not None and REFUSED in (result.output or "")
    assert shell.permissions.mode == "auto"
    await shell.aclose()
