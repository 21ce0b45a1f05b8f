"""RPC mode driven by a subprocess client: prompts, steer and follow-up mid-run, errors, framing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from queue import Empty, Queue
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
TIMEOUT = 15.0


class RpcClient:
    """Talks to an RPC child over pipes; a thread collects its stdout lines."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: Queue[dict[str, Any]] = Queue()
        self.seen: list[dict[str, Any]] = []
        self.raw: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in iter(self.process.stdout.readline, b""):
            self.raw.append(raw)
            self.lines.put(json.loads(raw))

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, command: dict[str, Any]) -> None:
        self.send_raw(json.dumps(command, ensure_ascii=False).encode("utf-8") + b"\n")

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        for line in self.seen:
            if predicate(line) and not line.get("_consumed"):
                line["_consumed"] = True
                return line
        while True:
            try:
                line = self.lines.get(timeout=TIMEOUT)
            except Empty:
                raise AssertionError(
                    f"timed out; seen: {[(x.get('type'), x.get('command')) for x in self.seen]}"
                ) from None
            self.seen.append(line)
            if predicate(line):
                line["_consumed"] = True
                return line

    def request(self, command: dict[str, Any]) -> dict[str, Any]:
        self.send(command)
        wanted = command.get("id")
        return self.wait_for(lambda x: x.get("type") == "response" and x.get("id") == wanted)

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=TIMEOUT)


def child_env(pi_home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"})
    return env


@pytest.fixture
def scripted_client(
    project: Path, pi_home: Path, tmp_path: Path
) -> Iterator[Callable[[list[dict]], RpcClient]]:
    clients: list[RpcClient] = []

    def start(script: list[dict]) -> RpcClient:
        path = tmp_path / f"script{len(clients)}.json"
        path.write_text(json.dumps(script))
        client = RpcClient(
            [sys.executable, "-m", "tests.modes.rpc.rpc_child", str(path)],
            project,
            child_env(pi_home),
        )
        clients.append(client)
        return client

    yield start
    for client in clients:
        if client.process.poll() is None:
            client.process.kill()
            client.process.wait()


def is_event(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda x: x.get("type") == kind


def test_rpc_session_with_steer_follow_up_and_errors(
    scripted_client: Callable[[list[dict]], RpcClient],
) -> None:
    client = scripted_client(
        [
            {
                "tool_calls": [
                    {"id": "c1", "name": "bash", "arguments": {"command": "sleep 0.6; echo slept"}}
                ]
            },
            {"text": "saw the steer"},
            {"text": "did the follow-up"},
            {"text": "second prompt answer"},
        ]
    )
    malformed = b'{"type": "get_state", "id": \n'
    client.send_raw(malformed)
    bad = client.wait_for(is_event("response"))
    assert bad["success"] is False and bad["command"] == "parse" and "Malformed" in bad["error"]
    unknown = client.request({"type": "dance", "id": "u1"})
    assert unknown["success"] is False and "Unknown command" in unknown["error"]

    assert client.request({"type": "prompt", "id": "p1", "message": "run the slow thing"})[
        "success"
    ]
    client.wait_for(is_event("tool_execution_start"))
    busy = client.request({"type": "prompt", "id": "p2", "message": "no behaviour"})
    assert busy["success"] is False and "streamingBehavior" in busy["error"]
    state = client.request({"type": "get_state", "id": "s1"})
    assert state["data"]["isStreaming"] is True
    assert client.request(
        {"type": "prompt", "id": "p3", "message": "steer now", "streamingBehavior": "steer"}
    )["success"]
    assert client.request({"type": "follow_up", "id": "f1", "message": "then this"})["success"]
    refused = client.request({"type": "new_session", "id": "n0"})
    assert refused["success"] is False and "running" in refused["error"]
    client.wait_for(is_event("agent_end"))

    messages = client.request({"type": "get_messages", "id": "m1"})["data"]["messages"]
    texts = [
        (m["role"], "".join(b.get("text", "") for b in m["content"] if b.get("type") == "text"))
        for m in messages
    ]
    assert texts == [
        ("user", "run the slow thing"),
        ("assistant", ""),
        ("toolResult", "slept"),
        ("user", "steer now"),
        ("assistant", "saw the steer"),
        ("user", "then this"),
        ("assistant", "did the follow-up"),
    ]
    last = client.request({"type": "get_last_assistant_text", "id": "l1"})
    assert last["data"]["text"] == "did the follow-up"
    stats = client.request({"type": "get_session_stats", "id": "st"})["data"]
    assert stats["userMessages"] == 3 and stats["toolCalls"] == 1 and stats["toolResults"] == 1
    answer = client.request({"type": "get_context", "id": "cx"})
    assert answer["success"], answer
    context = answer["data"]
    names = [part["name"] for part in context["parts"]]
    assert names == ["system prompt", "context files", "skills", "tools", "messages"]
    assert context["used"] == sum(part["tokens"] for part in context["parts"]) > 0
    assert context["free"] == context["window"] - context["used"]
    # U+2028 / U+2029 inside a JSON string are not line breaks.
    assert client.request({"type": "prompt", "id": "p4", "message": "line\u2028sep\u2029para"})[
        "success"
    ]
    client.wait_for(is_event("agent_end"))
    messages = client.request({"type": "get_messages", "id": "m2"})["data"]["messages"]
    assert messages[-2]["content"][0]["text"] == "line\u2028sep\u2029para"
    assert client.close() == 0
    assert all(raw.endswith(b"\n") and raw.count(b"\n") == 1 for raw in client.raw)


def test_rpc_sessions_fork_compact_and_abort(
    scripted_client: Callable[[list[dict]], RpcClient],
) -> None:
    client = scripted_client(
        [
            {"text": "one"},
            {"text": "two"},
            {"text": "## Goal\nsummary"},
            {"text": "slow", "delay": 0.5},
        ]
    )
    for index, message in enumerate(["first", "second"]):
        client.request({"type": "prompt", "id": f"p{index}", "message": message})
        client.wait_for(is_event("agent_end"))
    state = client.request({"type": "get_state", "id": "s"})["data"]
    assert state["messageCount"] == 4 and state["isStreaming"] is False
    compacted = client.request({"type": "compact", "id": "c", "customInstructions": "be brief"})
    assert compacted["success"], compacted
    assert (
        compacted["data"]["summary"].startswith("## Goal") and compacted["data"]["firstKeptEntryId"]
    )
    client.wait_for(is_event("compaction_end"))
    forked = client.request({"type": "fork", "id": "f"})["data"]
    assert Path(forked["sessionFile"]).is_file() and forked["sessionId"] != state["sessionId"]
    switched = client.request(
        {"type": "switch_session", "id": "sw", "sessionPath": state["sessionFile"]}
    )
    assert switched["success"] and switched["data"]["sessionId"] == state["sessionId"]
    new = client.request({"type": "new_session", "id": "n"})
    assert (
        new["success"]
        and client.request({"type": "get_messages", "id": "m"})["data"]["messages"] == []
    )
    models = client.request({"type": "get_available_models", "id": "am"})
    assert models["success"] and isinstance(models["data"]["models"], list)

    client.request({"type": "prompt", "id": "slow", "message": "take your time"})
    client.wait_for(lambda x: x.get("type") == "message_update")
    assert client.request({"type": "abort", "id": "a"})["success"]
    end = client.wait_for(is_event("agent_end"))
    assert end["messages"][-1]["stopReason"] == "aborted"
    assert client.close() == 0
