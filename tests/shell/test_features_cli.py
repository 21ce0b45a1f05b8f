"""The features through the real ``pi`` CLI against the fake provider server (loopback)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import ToolCallSpec, Turn
from tests.fakes.provider_server import FakeProviderServer
from tests.modes.rpc.test_rpc import RpcClient, child_env, is_event


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as fake:
        yield fake


def pi_args(server: FakeProviderServer) -> list[str]:
    return [
        "--model",
        "openai/fake-model",
        "--api-base",
        server.openai_base_url,
        "--api-key",
        "sk-test",
    ]


def run_pi(cwd: Path, pi_home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pi_cli.cli", *args],
        cwd=cwd,
        env=child_env(pi_home),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_cli_rpc_steer_follow_up_and_malformed(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    server.add(
        Turn(tool_calls=[ToolCallSpec("bash", {"command": "sleep 0.6; echo slept"}, id="call_1")]),
        Turn(text="steered"),
        Turn(text="followed up"),
    )
    client = RpcClient(
        [sys.executable, "-m", "pi_cli.cli", "--mode", "rpc", *pi_args(server)],
        project,
        child_env(pi_home),
    )
    try:
        client.send_raw(b"this is not json\n")
        assert client.wait_for(is_event("response"))["success"] is False
        assert client.request({"type": "prompt", "id": "1", "message": "go \u2028 on"})["success"]
        client.wait_for(is_event("tool_execution_start"))
        assert client.request({"type": "steer", "id": "2", "message": "steer text"})["success"]
        assert client.request(
            {"type": "prompt", "id": "3", "message": "follow text", "streamingBehavior": "followUp"}
        )["success"]
        client.wait_for(is_event("agent_end"))
        last = client.request({"type": "get_last_assistant_text", "id": "4"})
        assert last["data"]["text"] == "followed up"
        assert client.close() == 0
    finally:
        if client.process.poll() is None:
            client.process.kill()
    requests = [json.dumps(r, ensure_ascii=False) for r in server.requests]
    assert len(requests) == 3
    assert "go \u2028 on" in requests[0]
    assert "steer text" in requests[1] and "follow text" not in requests[1]
    assert "follow text" in requests[2]


def test_cli_skill_template_and_command_hook(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    skill = project / ".pi" / "skills" / "deploy" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(
        "---\nname: deploy\ndescription: How we deploy.\n---\nAlways run the smoke test first.\n"
    )
    (project / ".pi" / "prompts").mkdir()
    (project / ".pi" / "prompts" / "fix.md").write_text("Fix $1 in ${@:2}")
    gate = Path(__file__).resolve().parents[2] / "examples" / "hooks" / "permission_gate.sh"
    (project / ".pi" / "settings.json").write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "bash", "command": str(gate)}]}})
    )
    server.add(
        Turn(tool_calls=[ToolCallSpec("bash", {"command": "rm -rf /"}, id="call_1")]),
        Turn(text="refused"),
        Turn(text="fixed"),
    )
    # --trust: the project's own command hook runs only in a trusted folder (issue 12).
    result = run_pi(project, pi_home, "-p", "--trust", *pi_args(server), "/skill:deploy to staging")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "refused"
    first, second = (json.dumps(r) for r in server.requests[:2])
    assert "<available_skills>" in first and "<name>deploy</name>" in first
    assert "Always run the smoke test first." in first and "to staging" in first
    assert "Blocked by permission gate" in second
    result = run_pi(project, pi_home, "-p", *pi_args(server), '/fix "the bug" src/a.py src/b.py')
    assert result.returncode == 0, result.stderr
    assert "Fix the bug in src/a.py src/b.py" in json.dumps(server.requests[2])


def test_cli_overflow_compacts_and_retries_once(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    server.add(
        Turn(text="first answer"),
        Turn(
            status=400,
            error_message="This model's maximum context length is 128000 tokens. "
            "However, your messages resulted in 130000 tokens.",
            error_type="invalid_request_error",
        ),
        Turn(text="## Goal\nThe summary."),
        Turn(text="answer after compaction"),
    )
    assert run_pi(project, pi_home, "-p", *pi_args(server), "first question").returncode == 0
    result = run_pi(project, pi_home, "-p", "-c", *pi_args(server), "second question")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "answer after compaction"
    assert len(server.requests) == 4
    retry = json.dumps(server.requests[3])
    assert "The summary." in retry and "second question" in retry and "first answer" not in retry
    session_file = next((pi_home / "sessions").rglob("*.jsonl"))
    entries = [json.loads(line) for line in session_file.read_text().splitlines()[1:]]
    assert [e["type"] for e in entries].count("compaction") == 1
    assert any(
        e.get("message", {}).get("content", [{}])[0].get("text") == "first answer" for e in entries
    )
