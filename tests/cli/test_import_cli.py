"""``pi import`` end to end: a real Claude Code transcript and a real Codex rollout
(../shared/fixtures/i25/transcripts, Apache-2.0) imported, then resumed with ``--session``
against the fake provider: the model gets every tool call with its result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import RunPi, openai_args
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn
from tests.shell.importing.test_import import CLAUDE, CODEX, needs


@needs
@pytest.mark.parametrize(("source", "calls"), [(CLAUDE, 6), (CODEX, 3)])
def test_import_then_resume(
    server: FakeProviderServer, run_pi: RunPi, source: Path, calls: int
) -> None:
    done = run_pi("import", str(source))
    assert done.returncode == 0, done.stderr
    assert f"({calls} tool calls, {calls} results)" in done.stdout
    written = next(line for line in done.stdout.splitlines() if line.startswith("into "))[5:]
    server.add(Turn(text="picked up where it stopped"))
    resumed = run_pi(*openai_args(server), "--session", written, "-p", "go on")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == "picked up where it stopped\n"
    messages = server.requests[0]["messages"]
    asked = [
        c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []
    ]
    answered = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    assert len(asked) == calls and answered == asked
    assert json.dumps(messages[-1]).count("go on") == 1


def test_import_words_that_name_no_file_stay_a_prompt(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    server.add(Turn(text="done"))
    result = run_pi(*openai_args(server), "import", "the", "module")
    assert result.returncode == 0 and result.stdout == "done\n", result.stderr


def test_a_real_typescript_pi_session_imported_and_resumed(
    server: FakeProviderServer, run_pi: RunPi, tmp_path: Path
) -> None:
    """The TypeScript pi (npm, installed by .ci/run) runs the seed scenario against the fake
    server; its session file is imported and resumed by pi with the three calls intact."""
    import os
    import subprocess

    from bench._peer import pi_ts_argv, pi_ts_available, pi_ts_env
    from tests.fakes.script import seed_script

    if not pi_ts_available():
        pytest.skip("the TypeScript pi is not installed (.ci/run installs it)")
    project = tmp_path / "ts-project"
    project.mkdir()
    (project / "README.md").write_text("# demo\n")
    with FakeProviderServer(seed_script()) as ts_server:
        argv = pi_ts_argv(ts_server.openai_base_url, tmp_path / "pi-ts-agent", "-p", "explain")
        env = pi_ts_env(dict(os.environ), tmp_path)
        done = subprocess.run(argv, cwd=project, env=env, capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    (session,) = (tmp_path / "pi-ts-agent" / "sessions").rglob("*.jsonl")
    imported = run_pi("import", str(session))
    assert imported.returncode == 0, imported.stderr
    assert "from the TypeScript pi session" in imported.stdout
    assert "(3 tool calls, 3 results)" in imported.stdout and "left out" not in imported.stdout
    written = next(line for line in imported.stdout.splitlines() if line.startswith("into "))[5:]
    server.add(Turn(text="continued"))
    resumed = run_pi(*openai_args(server), "--session", written, "-p", "go on")
    assert resumed.returncode == 0 and resumed.stdout == "continued\n", resumed.stderr
    messages = server.requests[0]["messages"]
    asked = [
        c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []
    ]
    assert len(asked) == 3 and [m["tool_call_id"] for m in messages if m["role"] == "tool"] == asked
