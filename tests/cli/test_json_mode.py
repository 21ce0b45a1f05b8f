"""`pi --mode json`: one event per line, camelCase, linear in the answer's size."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import REPO, RunPi, openai_args
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn, seed_script


def test_json_mode_event_order(server: FakeProviderServer, run_pi: RunPi) -> None:
    server.add(*seed_script())
    result = run_pi(*openai_args(server), "--mode", "json", "what is this project?")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert events[0]["type"] == "session"
    types = [e["type"] for e in events[1:]]
    assert types[:4] == ["agent_start", "turn_start", "message_start", "message_end"]
    assert types[-1] == "agent_end"
    assert types.count("turn_start") == 4 and types.count("turn_end") == 4
    assert types.count("tool_execution_start") == 3 and types.count("tool_execution_end") == 3
    turn_ends = [e for e in events if e["type"] == "turn_end"]
    assert turn_ends[-1]["toolResults"] == []
    assert turn_ends[0]["toolResults"][0]["toolCallId"] == "call_1"
    assert turn_ends[0]["message"]["stopReason"] == "toolUse"
    updates = [e for e in events if e["type"] == "message_update"]
    assert updates and all(set(e) == {"type", "assistantMessageEvent"} for e in updates)
    ends = [e for e in events if e["type"] == "tool_execution_end"]
    assert all("isError" in e and "toolCallId" in e for e in ends)
    agent_end = events[-1]
    assert [m["role"] for m in agent_end["messages"]] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "toolResult",
        "assistant",
        "toolResult",
        "assistant",
    ]


def test_json_output_grows_linearly_through_a_pipe(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    words = 20_000
    answer = " ".join(f"word{i % 97}" for i in range(words))
    server.add(Turn(text=answer, chunk_size=24))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"})
    # Read through a real pipe in small pieces, like a slow consumer.
    process = subprocess.Popen(
        [sys.executable, "-m", "pi_cli.cli", *openai_args(server), "--mode", "json", "go"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    assert process.stdout is not None
    chunks = []
    while piece := process.stdout.read(4096):
        chunks.append(piece)
    process.wait(timeout=60)
    output = b"".join(chunks)
    assert process.returncode == 0
    lines = output.decode().splitlines()
    assert json.loads(lines[-1])["type"] == "agent_end"
    # Each delta costs a bounded overhead, never the whole partial message again.
    assert len(output) < 12 * len(answer), (len(output), len(answer))


def test_json_partials_flag_writes_pis_message_update_and_real_identity(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    server.add(Turn(text="hello there, " * 40, chunk_size=8))
    result = run_pi(*openai_args(server), "--mode", "json", "--json-partials", "greet me")
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    updates = [e for e in events if e["type"] == "message_update"]
    assert updates and all(u["message"] == u["assistantMessageEvent"]["partial"] for u in updates)
    start = next(
        e for e in events if e["type"] == "message_start" and e["message"]["role"] == "assistant"
    )
    end = next(
        e for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant"
    )
    assert start["message"]["api"] == end["message"]["api"] == "openai-completions"
    assert start["message"]["provider"] == end["message"]["provider"] == "openai"
    assert start["message"]["model"] == end["message"]["model"] != ""


def test_provider_needs_a_model(run_pi: RunPi) -> None:
    result = run_pi("--provider", "anthropic", "-p", "hi")
    assert result.returncode == 2 and "--provider anthropic needs --model" in result.stderr
