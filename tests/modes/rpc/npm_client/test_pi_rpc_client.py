"""pi's own RpcClient (npm @mariozechner/pi-coding-agent 0.73.1) drives ``pi --mode rpc`` of this
project, command by command, against the fake provider on loopback.

Skipped (with the reason) when node or the npm cache that ``.ci/run`` fills is missing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import ToolCallSpec, Turn
from tests.fakes.provider_server import FakeProviderServer
from tests.modes.rpc.npm_client.driver import REPO, PiRpcClient, RpcCallError, start_options
from tests.pi_npm import require_pi_package

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="


@pytest.fixture
def rig(
    tmp_path: Path, pi_home: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[PiRpcClient, FakeProviderServer, Path]]:
    package = require_pi_package()
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".pi" / "prompts").mkdir(parents=True)
    (project / ".pi" / "prompts" / "audit.md").write_text(
        "---\ndescription: Review\n---\nReview $1"
    )
    skill = project / ".pi" / "skills" / "helper" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: helper\ndescription: Helps.\n---\nHelp.")
    server = FakeProviderServer().start()
    models = {
        "providers": {
            "fake": {
                "baseUrl": server.openai_base_url,
                "api": "openai-completions",
                "apiKey": "test-key",
                "models": [
                    {"id": "fake-model", "reasoning": True, "contextWindow": 100000},
                    {"id": "fake-fast", "contextWindow": 50000, "maxTokens": 2048},
                ],
            }
        }
    }
    (pi_home / "models.json").write_text(json.dumps(models))
    (pi_home / "settings.json").write_text(json.dumps({"retry": {"baseDelayMs": 30000}}))
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        {
            "PI_HOME": str(pi_home),
            "HOME": str(home),
            "PYTHONPATH": str(REPO),
            "PI_NO_LOCAL_PROBE": "1",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
    )
    client = PiRpcClient(package, env)
    client.call("start", start_options(project, env))
    yield client, server, project
    client.close()
    server.stop()


def events_between(client: PiRpcClient, start: int) -> list[dict[str, Any]]:
    return list(client.events[start:])


def test_pi_rpc_client_runs_every_command(
    rig: tuple[PiRpcClient, FakeProviderServer, Path],
) -> None:
    client, server, project = rig
    server.add(
        Turn(text="It printed hello."),
        Turn(text="## Goal\nSay hello."),
        Turn(text="A tiny picture."),
    )

    # ---------------------------------------------------------------- state and models
    state = client.call("getState")
    assert state["model"]["provider"] == "fake" and state["model"]["id"] == "fake-model"
    assert state["model"]["contextWindow"] == 100000 and state["model"]["reasoning"] is True
    assert state["isStreaming"] is False and state["messageCount"] == 0
    assert "sessionName" not in state and state["sessionFile"].endswith(".jsonl")
    models = client.call("getAvailableModels")
    assert [(m["provider"], m["id"]) for m in models][:2] == [
        ("fake", "fake-model"),
        ("fake", "fake-fast"),
    ]
    assert all(m["contextWindow"] > 0 and isinstance(m["reasoning"], bool) for m in models)
    commands = {c["name"]: c for c in client.call("getCommands")}
    assert commands["audit"]["source"] == "prompt" and commands["skill:helper"]["source"] == "skill"
    assert commands["audit"]["sourceInfo"]["scope"] == "project"
    assert client.call("getLastAssistantText") is None

    # ---------------------------------------------------------------- bash, then a prompt
    bash = client.call("bash", "echo hello")
    assert bash == {"output": "hello", "exitCode": 0, "cancelled": False, "truncated": False}
    start = len(client.events)
    events = client.call("promptAndWait", "What did echo print?")
    assert "Ran `echo hello`\\n```\\nhello\\n```" in json.dumps(server.requests[0])
    starts = [
        e for e in events if e["type"] == "message_start" and e["message"]["role"] == "assistant"
    ]
    ends = [e for e in events if e["type"] == "message_end" and e["message"]["role"] == "assistant"]
    for key in ("api", "provider", "model"):
        assert starts[0]["message"][key] == ends[0]["message"][key] != ""
    assert ends[0]["message"]["model"] == "fake-model"
    updates = [e for e in events if e["type"] == "message_update"]
    assert updates and all(
        u["message"]["role"] == "assistant"
        and u["assistantMessageEvent"]["partial"] == u["message"]
        for u in updates
    )
    deltas = "".join(
        u["assistantMessageEvent"]["delta"]
        for u in updates
        if u["assistantMessageEvent"]["type"] == "text_delta"
    )
    assert deltas == "It printed hello."  # coalesced deltas lose nothing
    assert events_between(client, start)[-1]["type"] == "agent_end"
    roles = [m["role"] for m in client.call("getMessages")]
    assert roles == ["bashExecution", "user", "assistant"]
    assert client.call("getLastAssistantText") == "It printed hello."
    stats = client.call("getSessionStats")
    assert stats["userMessages"] == 1 and stats["assistantMessages"] == 1
    assert stats["sessionFile"] == state["sessionFile"] and stats["contextUsage"]["tokens"] > 0

    # ---------------------------------------------------------------- thinking, queue modes, switches
    client.call("setThinkingLevel", "high")
    assert client.call("getState")["thinkingLevel"] == "high"
    assert client.call("cycleThinkingLevel") == {"level": "off"}
    client.call("setSteeringMode", "all")
    client.call("setFollowUpMode", "all")
    client.call("setAutoCompaction", False)
    client.call("setAutoRetry", True)
    client.call("abortRetry")  # nothing to abort: still a success
    state = client.call("getState")
    assert (state["steeringMode"], state["followUpMode"]) == ("all", "all")
    assert state["autoCompactionEnabled"] is False and state["thinkingLevel"] == "off"
    assert client.wait_event(lambda e: e["type"] == "thinking_level_changed")["level"] == "high"

    # ---------------------------------------------------------------- models
    chosen = client.call("setModel", "fake", "fake-fast")
    assert (chosen["provider"], chosen["id"], chosen["maxTokens"]) == ("fake", "fake-fast", 2048)
    assert client.call("cycleThinkingLevel") is None  # fake-fast does not reason
    cycled = client.call("cycleModel")
    assert cycled["model"]["id"] == "fake-model" and cycled["isScoped"] is False
    with pytest.raises(RpcCallError, match="nope"):
        client.call("setModel", "nope", "missing")

    # ---------------------------------------------------------------- compaction, images
    compacted = client.call("compact")  # after a single exchange, as pi allows
    assert compacted["summary"].startswith("## Goal") and compacted["tokensBefore"] > 0
    client.call(
        "prompt",
        "What is in the picture?",
        [{"type": "image", "data": PIXEL, "mimeType": "image/png"}],
    )
    client.call("waitForIdle")
    assert PIXEL in json.dumps(server.requests[-1])
    assert client.call("getLastAssistantText") == "A tiny picture."

    # ---------------------------------------------------------------- sessions
    forks = client.call("getForkMessages")
    assert [f["text"] for f in forks] == ["What did echo print?", "What is in the picture?"]
    original = client.call("getState")["sessionFile"]
    forked = client.call("fork", forks[1]["entryId"])
    assert (forked["text"], forked["cancelled"]) == ("What is in the picture?", False)
    assert client.call("getState")["sessionFile"] != original
    assert client.call("clone")["cancelled"] is False
    assert client.call("switchSession", original)["cancelled"] is False
    assert client.call("getState")["sessionFile"] == original
    exported = client.call("exportHtml", str(project / "session.html"))
    assert exported == {"path": str(project / "session.html")}
    page = (project / "session.html").read_text()
    assert "What did echo print?" in page and "It printed hello." in page
    client.call("setSessionName", "work")
    assert client.call("getState")["sessionName"] == "work"
    assert "<title>work</title>" in (Path(client.call("exportHtml")["path"])).read_text()
    assert client.call("newSession")["cancelled"] is False
    assert client.call("getState")["messageCount"] == 0


def test_pi_rpc_client_steers_aborts_and_stops_commands(
    rig: tuple[PiRpcClient, FakeProviderServer, Path],
) -> None:
    client, server, _ = rig
    words = " ".join(f"w{i}" for i in range(60))
    server.add(
        Turn(text=words, chunk_size=4, chunk_delay_s=0.03),
        Turn(text="saw the steer"),
        Turn(text="did the follow-up"),
        Turn(text=words * 10, chunk_size=4, chunk_delay_s=0.05),
        Turn(status=529),
    )
    start = len(client.events)
    client.call("prompt", "Count slowly")
    client.wait_event(lambda e: e["type"] == "message_update", start=start)
    client.call("steer", "Then stop counting")
    client.call("followUp", "And say bye")
    queued = client.wait_event(lambda e: e["type"] == "queue_update" and e["followUp"], start=start)
    assert queued["steering"] == ["Then stop counting"] and queued["followUp"] == ["And say bye"]
    client.call("waitForIdle")
    texts = [m.get("content") for m in client.call("getMessages") if m["role"] == "user"]
    assert [t[0]["text"] for t in texts] == ["Count slowly", "Then stop counting", "And say bye"]

    start = len(client.events)
    client.call("prompt", "Count a lot")
    client.wait_event(lambda e: e["type"] == "message_update", start=start)
    client.call("abort")
    end = client.wait_event(lambda e: e["type"] == "agent_end", start=start)
    assert end["messages"][-1]["stopReason"] == "aborted"

    running = client.send("bash", "sleep 20; echo never")
    time.sleep(0.5)
    client.call("abortBash")
    outcome = client.result(running)
    assert outcome["ok"] and outcome["value"]["cancelled"] is True
    assert outcome["value"]["exitCode"] is None

    start = len(client.events)
    client.call("prompt", "This will be retried")
    retry = client.wait_event(lambda e: e["type"] == "auto_retry_start", start=start)
    assert retry["attempt"] == 1 and retry["delayMs"] == 30000
    began = time.monotonic()
    client.call("abortRetry")
    end = client.wait_event(lambda e: e["type"] == "agent_end", start=start)
    assert time.monotonic() - began < 10
    assert "retry cancelled" in end["messages"][-1]["errorMessage"]
    ended = client.wait_event(lambda e: e["type"] == "auto_retry_end", start=start)
    assert ended["success"] is False


def test_pi_rpc_client_rewinds_and_restores_through_send(
    rig: tuple[PiRpcClient, FakeProviderServer, Path],
) -> None:
    """Our ``rewind`` / ``restore`` commands through pi's client (its generic ``send``)."""
    client, server, project = rig
    server.add(
        Turn(tool_calls=[ToolCallSpec("bash", {"command": "echo first > a.txt"})]),
        Turn(text="made a"),
        Turn(tool_calls=[ToolCallSpec("bash", {"command": "echo second > a.txt; echo b > b.txt"})]),
        Turn(text="changed a, made b"),
    )
    client.call("promptAndWait", "make a")
    client.call("promptAndWait", "change a")
    listed = client.call("send", {"type": "rewind"})
    assert listed["success"], listed
    points = listed["data"]["points"]
    assert [p["text"] for p in points] == ["make a", "change a"]
    assert {f["path"] for f in points[1]["files"]} == {"a.txt", "b.txt"}

    restored = client.call("send", {"type": "restore", "entryId": points[1]["entryId"]})
    assert restored["success"], restored
    assert (project / "a.txt").read_text() == "first\n" and not (project / "b.txt").exists()
    undone = client.call("send", {"type": "restore", "undo": True})
    assert undone["success"] and (project / "b.txt").read_text() == "b\n"

    rewound = client.call("send", {"type": "rewind", "entryId": points[0]["entryId"]})
    assert rewound["success"] and rewound["data"]["text"] == "make a"
    assert not (project / "a.txt").exists()
    assert client.call("getState")["messageCount"] == 0
    refused = client.call("send", {"type": "rewind", "entryId": "nope"})
    assert refused["success"] is False and "No entry nope" in refused["error"]
