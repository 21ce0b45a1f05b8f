"""Every CLI listing with hostile names: what a model or a repository chose (prompts, file names,
MCP server names and commands, folder names, model ids, settings values) reaches the terminal
without its escape sequences (OSC 52 clipboard writes, CSI, C1 controls, bidi overrides), and
pi's CLI modules print only through the one sanitizer (:mod:`pi_cli.shell.text.terminal`)."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

from tests.cli.conftest import REPO, RunPi, openai_args
from tests.fakes import ToolCallSpec, Turn
from tests.fakes.provider_server import FakeProviderServer

OSC52 = "\x1b]52;c;ZWNobyBwd25lZA==\x07"
HOSTILE = f"evil{OSC52}\x1b[2J\x9b31m\u202egnp.exe\x1b[0m"
"""A name as an attacker writes it: a clipboard write, a screen clear, an 8-bit CSI, a bidi
override."""
FORBIDDEN = ("\x1b", "\x9b", "\x9d", "\u202e", "\x07")


def assert_inert(*texts: str) -> None:
    for text in texts:
        for char in FORBIDDEN:
            assert char not in text, (char, text[:300])


def test_mcp_list_and_get_and_remove(run_pi: RunPi, project: Path, pi_home: Path) -> None:
    servers = {HOSTILE: {"command": f"run{OSC52}", "args": ["--x\u202e"]}}
    (pi_home / "settings.json").write_text(json.dumps({"mcpServers": servers}))
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {f"b\n{HOSTILE}": {"url": HOSTILE}}})
    )
    listed = run_pi("mcp", "list")
    assert listed.returncode == 0, listed.stderr
    assert_inert(listed.stdout, listed.stderr)
    assert "evil" in listed.stdout and "gnp.exe" in listed.stdout
    assert "b\\nevil" in listed.stdout  # a line break in a name cannot forge a listing line
    got = run_pi("mcp", "get", HOSTILE)
    assert got.returncode == 0 and json.loads(got.stdout)["name"] == HOSTILE
    assert_inert(got.stdout)
    missing = run_pi("mcp", "get", f"nope{OSC52}")
    assert missing.returncode == 1
    assert_inert(missing.stderr)
    removed = run_pi("mcp", "remove", HOSTILE)
    assert removed.returncode == 0 and "Removed MCP server evil" in removed.stdout
    assert_inert(removed.stdout)


def test_trust_listing_and_notice(run_pi: RunPi, tmp_path: Path, pi_home: Path) -> None:
    folder = tmp_path / f"repo{OSC52}\u202e"
    (folder / ".pi").mkdir(parents=True)
    (folder / ".pi" / "settings.json").write_text(
        json.dumps({"model": HOSTILE, "apiBase": f"http://x{OSC52}/", "hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": f"echo {OSC52}"}]}]}})
    )  # fmt: skip
    trusted = run_pi("trust", str(folder))
    assert trusted.returncode == 0, trusted.stderr
    assert_inert(trusted.stdout, trusted.stderr)
    assert (
        "model evil" in trusted.stdout
        and "hooks in .pi/settings.json: Stop `echo" in trusted.stdout
    )
    listed = run_pi("trust", "--list")
    assert listed.returncode == 0 and "trusted" in listed.stdout and "repo" in listed.stdout
    assert_inert(listed.stdout)
    revoked = run_pi("trust", "--revoke", str(folder))
    assert_inert(revoked.stdout)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_rewind_listing_plan_and_result(
    server: FakeProviderServer, run_pi: RunPi, project: Path
) -> None:
    name = f"f{OSC52}\u202etxt.exe"
    server.add(
        Turn(tool_calls=[ToolCallSpec("write", {"path": name, "content": "x\n"})]),
        Turn(text=f"wrote {HOSTILE}"),
    )
    prompt = f"make it {HOSTILE}\nsecond line"
    assert run_pi(*openai_args(server), "-p", prompt).returncode == 0
    listed = run_pi("rewind")
    assert listed.returncode == 0, listed.stderr
    assert_inert(listed.stdout, listed.stderr)
    assert "make it evil" in listed.stdout
    as_json = run_pi("rewind", "--json")
    assert_inert(as_json.stdout)
    assert OSC52 in json.loads(as_json.stdout)["points"][0]["text"]  # escaped, not lost
    plan = run_pi("rewind", "1", "--dry-run")
    assert_inert(plan.stdout, plan.stderr)
    done = run_pi("rewind", "1", "--yes")
    assert done.returncode == 0, done.stderr
    assert_inert(done.stdout, done.stderr)
    assert "The prompt was: make it evil" in done.stdout


def test_export_path_and_warnings(
    server: FakeProviderServer, run_pi: RunPi, project: Path, pi_home: Path
) -> None:
    server.add(Turn(text=f"answer {HOSTILE}"))
    assert run_pi(*openai_args(server), "-p", f"hi {HOSTILE}").returncode == 0
    sessions = sorted((pi_home / "sessions").rglob("*.jsonl"))
    exported = run_pi("--export", str(sessions[-1]), f"out{OSC52}.html")
    assert exported.returncode == 0, exported.stderr
    assert_inert(exported.stdout, exported.stderr)
    assert "out" in exported.stdout and exported.stdout.strip().endswith(".html")


def test_list_models_names_from_models_json(run_pi: RunPi, pi_home: Path) -> None:
    models = {
        "providers": {
            "evilprov": {
                "baseUrl": "http://127.0.0.1:9/v1",
                "api": "openai-completions",
                "models": [{"id": HOSTILE, "contextWindow": 1000}],
            }
        }
    }
    (pi_home / "models.json").write_text(json.dumps(models))
    listed = run_pi("--list-models", "evil")
    assert_inert(listed.stdout, listed.stderr)


def test_errors_quoting_hostile_values(run_pi: RunPi, pi_home: Path) -> None:
    (pi_home / "settings.json").write_text(json.dumps({"thinking": HOSTILE}))
    bad = run_pi("-p", "hi")
    assert bad.returncode != 0
    assert_inert(bad.stdout, bad.stderr)
    missing = run_pi("--session", f"/nonexistent/{OSC52}.jsonl", "-p", "hi")
    assert_inert(missing.stdout, missing.stderr)


# ---------------------------------------------------------------- the one sanitizer

ALLOWED_RAW_WRITES = {
    ("pi_cli/modes/plain/repl.py", "write"): "pi's own OSC 52 for /copy (base64 payload)",
    ("pi_cli/cli.py", "print"): "the version string",
    ("pi_cli/cli_app.py", "print"): "the version string",
}


def _raw_outputs(path: Path) -> list[tuple[str, int]]:
    """``print(...)`` calls and ``sys.stdout/stderr.write(...)`` in one module."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "print":
            found.append(("print", node.lineno))
        elif (
            isinstance(func, ast.Attribute)
            and func.attr == "write"
            and isinstance(func.value, ast.Attribute)
            and func.value.attr in ("stdout", "stderr")
        ):
            found.append(("write", node.lineno))
    return found


def test_cli_modules_print_only_through_the_sanitizer() -> None:
    modules = [*REPO.glob("pi_cli/*.py"), *REPO.glob("pi_cli/modes/**/*.py")]
    offenders = []
    for path in modules:
        relative = str(path.relative_to(REPO))
        for kind, line in _raw_outputs(path):
            if (relative, kind) not in ALLOWED_RAW_WRITES:
                offenders.append(f"{relative}:{line} {kind}")
    assert offenders == [], "print through pi_cli.shell.say / clean / one_line instead"


def test_the_sanitizer_removes_every_kind_of_sequence() -> None:
    from pi_cli.shell.text.terminal import clean, json_text, one_line

    assert clean(HOSTILE) == "evil31mgnp.exe"
    assert one_line("a\nb\tc\u2028d") == "a\\nb c\\nd"
    text = json_text({"k": "a\x9b\u202e\x7f"})
    assert json.loads(text) == {"k": "a\x9b\u202e\x7f"} and "\x9b" not in text
    for sequence in ("\x1bP1$r\x1b\\", "\x1b_APC\x07", "\x1b^PM\x1b\\", "\x1bX SOS\x1b\\",
                     "\x1b(0", "\x1b#8", "\x1bc", "\x9d0;title\x9c", "\u2066x\u2069"):  # fmt: skip
        assert_inert(clean(sequence))
