"""One-shot and JSON mode cannot ask: such a call is denied, said once, and the exit code is 7."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import SEED_FINAL_TEXT, ToolCallSpec, Turn, seed_script
from tests.shell.permissions.conftest import RunPi, fake_args, tool_results

MODES = ("default", "acceptEdits", "auto", "plan", "dontAsk", "bypassPermissions", "yolo")


def test_the_seed_scenario_asks_nothing_in_any_mode(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    for mode in MODES:
        server.add(*seed_script())
        result = run_pi(*fake_args(server, "--permission-mode", mode), "explain this project")
        assert result.returncode == 0, (mode, result.stderr)
        assert result.stdout == SEED_FINAL_TEXT + "\n"
        assert "denied" not in result.stderr and "approval" not in result.stderr, mode


def test_a_call_needing_approval_is_denied_with_exit_code_7(
    server: FakeProviderServer, run_pi: RunPi, project: Path
) -> None:
    server.add(
        Turn(
            tool_calls=[
                ToolCallSpec("bash", {"command": "npm test"}, id="c1"),
                ToolCallSpec("bash", {"command": "touch made"}, id="c2"),
            ]
        ),  # fmt: skip
        Turn(text="could not run the tests"),
    )
    result = run_pi(*fake_args(server), "run the tests")
    assert result.returncode == 7, result.stderr
    assert result.stdout == "could not run the tests\n"
    first, second = tool_results(server.requests[1])
    assert first.startswith("denied: this call needs the user's approval") and "npm" in first
    assert not (project / "made").exists()
    lines = result.stderr.splitlines()
    assert sum("auto mode has no sandbox here" in line for line in lines) == 1  # said once
    assert sum("✗ bash: denied" in line for line in lines) == 2  # one line per denied call


def test_rules_or_a_mode_make_it_run(
    server: FakeProviderServer, run_pi: RunPi, project: Path
) -> None:
    for extra in (["--allowed-tools", "Bash(touch:*)"], ["--permission-mode", "yolo"],
                  ["--dangerously-skip-permissions"]):  # fmt: skip
        server.add(
            Turn(tool_calls=[ToolCallSpec("bash", {"command": "touch made"}, id="c1")]),
            Turn(text="ok"),
        )
        result = run_pi(*fake_args(server, *extra), "touch")
        assert result.returncode == 0, (extra, result.stderr)
        assert (project / "made").exists()
        (project / "made").unlink()
    server.add(
        Turn(tool_calls=[ToolCallSpec("bash", {"command": "touch made"}, id="c1")]), Turn(text="ok")
    )
    result = run_pi(
        *fake_args(server, "--permission-mode", "yolo", "--disallowed-tools", "Bash(touch:*)"), "t"
    )
    assert result.returncode == 0 and not (project / "made").exists()  # a deny rule holds in yolo
    assert "denied by the permission rule Bash(touch:*) (from --disallowed-tools)" in json.dumps(
        server.requests[-1]
    )


def test_json_mode_denies_with_events_and_one_stderr_line(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    server.add(
        Turn(
            tool_calls=[
                ToolCallSpec("write", {"path": "/tmp/pi-outside.txt", "content": "x"}, id="c1")
            ]
        ),
        Turn(text="ok"),
    )
    result = run_pi(*fake_args(server, "--mode", "json"), "write outside")
    assert result.returncode == 7
    events = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [e.get("type") for e in events]
    assert "permission_requested" in kinds and "permission_resolved" in kinds
    resolved = next(e for e in events if e.get("type") == "permission_resolved")
    assert resolved["by"] == "non_interactive" and resolved["allowed"] is False
    denials = [line for line in result.stderr.splitlines() if line.startswith("pi: denied write")]
    assert len(denials) == 1 and not Path("/tmp/pi-outside.txt").exists()


def test_add_dir_widens_the_workspace(
    server: FakeProviderServer, run_pi: RunPi, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("from the other dir\n")
    for extra, code in (([], 7), (["--add-dir", str(other)], 0)):
        server.add(
            Turn(tool_calls=[ToolCallSpec("read", {"path": str(other / "notes.txt")}, id="c1")]),
            Turn(text="ok"),
        )
        result = run_pi(*fake_args(server, *extra), "read it")
        assert result.returncode == code, result.stderr
    assert "from the other dir" in tool_results(server.requests[-1])[0]
