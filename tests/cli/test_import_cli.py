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
