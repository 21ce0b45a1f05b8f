"""Sessions hosted by a real ``pi serve``, driven by several WebSocket clients at once."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.server.harness import ServerProcess, WsClient, of_type


def touch(name: str) -> ToolCallSpec:
    return ToolCallSpec("bash", {"command": f"touch {name}"}, id=f"call_{name}")


def _hanging(provider: FakeProviderServer, text: str) -> bool:
    return any(text in json.dumps(r["messages"]) for r in provider.requests)


def ui_request(line: dict[str, Any]) -> bool:
    return line.get("type") == "extension_ui_request"


def test_a_client_attaching_mid_run_sees_the_whole_run(
    server: ServerProcess, project: Path, model: dict[str, Any], provider: FakeProviderServer
) -> None:
    answer = " ".join(f"word{i}" for i in range(600))
    provider.add(
        Turn(tool_calls=[ToolCallSpec("bash", {"command": "echo one"}, id="c1")]),
        Turn(text=answer, chunk_size=20, chunk_delay_s=0.01),
    )
    session = server.open_session(project, **model)["id"]
    first = WsClient(server, session)
    assert first.wait_for(of_type("attached"))["messages"] == []
    assert first.request({"type": "prompt", "id": "p", "message": "go"})["success"]
    first.wait_for(lambda x: x.get("type") == "message_update" and len(json.dumps(x)) > 2000)
    late = WsClient(server, session)  # while the answer streams
    hello = late.wait_for(of_type("attached"))
    assert hello["messages"] == [] and hello["backlog"] > 0
    assert hello["state"]["isStreaming"] is True
    ends = [c.wait_for(of_type("agent_end")) for c in (first, late)]
    assert ends[0] == ends[1] and ends[0]["messages"][-1]["content"][0]["text"] == answer
    # The late client got the run from its start: the prompt, the tool call and its result.
    kinds = [x["type"] for x in late.seen]
    for kind in (
        "agent_start",
        "turn_start",
        "tool_execution_start",
        "tool_execution_end",
        "turn_end",
    ):
        assert kind in kinds, kind
    prompt = next(x for x in late.seen if x["type"] == "message_start")
    assert prompt["message"]["role"] == "user" and prompt["message"]["content"][0]["text"] == "go"
    # Every live line after the backlog is byte for byte what the first client got.
    for c in (first, late):
        c.wait_for(lambda x: x.get("type") == "shell_state" and x["state"] == "idle")
    live = late.raw[1 + hello["backlog"] :]
    assert len(live) > 10 and first.raw[-len(live) :] == live
    messages = [c.request({"type": "get_messages", "id": "m"})["data"] for c in (first, late)]
    assert (
        messages[0] == messages[1] and len(messages[0]["messages"]) == 4
    )  # user, call, result, answer
    first.close()
    late.close()


def test_closing_every_client_never_stops_the_run(
    server: ServerProcess, project: Path, model: dict[str, Any], provider: FakeProviderServer
) -> None:
    provider.add(Turn(text="a b c d e f g h " * 40, chunk_size=8, chunk_delay_s=0.01))
    session = server.open_session(project, **model)["id"]
    client = WsClient(server, session)
    client.request({"type": "prompt", "id": "p", "message": "talk"})
    client.wait_for(of_type("message_update"))
    client.close()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        state = server.rpc(session, {"type": "get_state", "id": 1})["data"]
        if state["isIdle"]:
            break
        time.sleep(0.05)
    messages = server.rpc(session, {"type": "get_messages", "id": 2})["data"]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["stopReason"] == "stop"


def test_two_clients_racing_an_approval_exactly_one_wins(
    server: ServerProcess, project: Path, model: dict[str, Any], provider: FakeProviderServer
) -> None:
    provider.add(Turn(tool_calls=[touch("raced")]), Turn(text="done"))
    session = server.open_session(project, permissionMode="default", **model)["id"]
    clients = [WsClient(server, session) for _ in range(2)]
    clients[0].request({"type": "prompt", "id": "p", "message": "touch it"})
    requests = [c.wait_for(ui_request) for c in clients]
    assert requests[0] == requests[1]
    rid = requests[0]["id"]
    # Both answer at once, differently: exactly one answer counts.
    clients[0].send({"type": "extension_ui_response", "id": rid, "value": "Allow once", "_": 0})
    clients[1].send({"type": "extension_ui_response", "id": rid, "value": "Deny", "_": 1})
    resolved = [c.wait_for(of_type("permission_resolved")) for c in clients]
    assert resolved[0] == resolved[1] and resolved[0]["by"] == "user"
    refusals = [
        line
        for c in clients
        for line in c.seen
        if line.get("type") == "response" and line.get("command") == "extension_ui_response"
    ]
    assert len(refusals) == 1
    winner = "Allow once" if resolved[0]["allowed"] else "Deny"
    assert refusals[0]["error"] == (
        f"No pending request '{rid}': it was answered ({winner}) first; this answer was not used"
    )
    for c in clients:
        c.wait_for(of_type("agent_end"))
    assert (project / "raced").exists() == resolved[0]["allowed"]
    for c in clients:
        c.close()


def test_a_restarted_server_reports_the_run_interrupted_and_keeps_session_and_queue(
    serve: Callable[..., ServerProcess],
    project: Path,
    model: dict[str, Any],
    provider: FakeProviderServer,
) -> None:
    for sig in (signal.SIGKILL, signal.SIGTERM):
        provider.add(Turn(text="never finishes", hang=True))
        server = serve()
        session = server.open_session(project, **model)["id"]
        client = WsClient(server, session)
        client.request({"type": "prompt", "id": "p", "message": f"long job {sig}"})
        client.wait_for(of_type("agent_start"))
        queued = client.request(
            {
                "type": "prompt",
                "id": "f",
                "message": f"and then this {sig}",
                "streamingBehavior": "followUp",
            }
        )
        assert queued["success"]
        client.wait_for(lambda x: x.get("type") == "queue_changed" and x["items"])
        while not _hanging(provider, f"long job {sig}"):
            time.sleep(0.02)  # the model has the request (and hangs on it)
        server.stop(sig)
        client.thread.join(20)
        again = serve()
        listed = {s["id"]: s for s in again.sessions()}
        assert listed[session]["state"] == "interrupted" and listed[session]["live"] is False
        assert "stopped while it ran" in listed[session]["interrupted"]
        back = WsClient(again, session)
        hello = back.wait_for(of_type("attached"))
        assert [m["content"][0]["text"] for m in hello["messages"] if m["role"] == "user"][
            -1
        ] == f"long job {sig}"
        notice = back.wait_for(lambda x: x.get("type") == "notice" and "interrupted" in x["text"])
        assert notice["level"] == "warning"
        returned = back.wait_for(of_type("queue_returned"))
        assert returned["reason"] == "restored"
        assert [i["text"] for i in returned["items"]] == [f"and then this {sig}"]
        listed = again.sessions()[0]
        assert listed["live"] is True and listed["state"] == "interrupted"  # until a new run
        provider.add(Turn(text="resumed"))
        back.request({"type": "prompt", "id": "again", "message": "carry on"})
        back.wait_for(of_type("agent_end"))
        back.wait_for(lambda x: x.get("type") == "shell_state" and x["state"] == "idle")
        assert again.sessions()[0]["state"] == "idle"
        back.close()
        again.stop()


def test_an_approval_with_nobody_attached_notifies_the_desktop_and_waits(
    serve: Callable[..., ServerProcess],
    pi_home: Path,
    tmp_path: Path,
    project: Path,
    model: dict[str, Any],
    provider: FakeProviderServer,
) -> None:
    import os

    from tests.server.harness import child_env

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    told = tmp_path / "notified.txt"
    fake = bin_dir / "notify-send"
    fake.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" >> {told}\n')
    fake.chmod(0o755)
    env = child_env(pi_home, PATH=f"{bin_dir}:{os.environ['PATH']}", DISPLAY=":99")
    server = serve(env=env)
    provider.add(Turn(tool_calls=[touch("later")]), Turn(text="done"))
    session = server.open_session(project, permissionMode="default", **model)["id"]
    assert server.rpc(session, {"type": "prompt", "id": 1, "message": "touch later"})["success"]
    deadline = time.monotonic() + 20
    while not (told.exists() and "pi attach" in told.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    lines = told.read_text().splitlines()
    assert "pi: approval needed (" + session[:8] + ")" in lines
    assert any("bash: $ touch later" in line for line in lines)
    listed = server.sessions()[0]
    assert listed["waitingForApproval"] == 1 and listed["state"] == "running"
    # The first client to attach is asked, answers, and the run goes on.
    client = WsClient(server, session)
    request = client.wait_for(ui_request)
    assert request["timeout"] == 86_400_000  # server.approvalTimeoutS: a day by default
    client.send({"type": "extension_ui_response", "id": request["id"], "value": "Allow once"})
    client.wait_for(of_type("agent_end"))
    assert (project / "later").exists()
    client.close()
