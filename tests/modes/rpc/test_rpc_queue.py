"""RPC clients use the shell's queue: prompts while busy, the queue commands, queue events."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any

from pi_cli.modes.rpc.mode import RpcServer
from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tui.helpers import GateTool


class Rpc:
    """An in-process RPC server over one shell; ``lines()`` is everything it wrote."""

    def __init__(self, shell: CodingAgent) -> None:
        self.out = io.BytesIO()
        self.server = RpcServer(shell, self.out)
        shell.subscribe(self.server.write_event)

    async def send(self, **command: Any) -> dict[str, Any]:
        await self.server.handle_line(json.dumps(command).encode())
        responses = [x for x in self.lines() if x["type"] == "response"]
        return next(r for r in reversed(responses) if r.get("id") == command.get("id"))

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.out.getvalue().splitlines()]


async def test_steer_follow_up_and_an_edited_queue_item_reach_the_model(project: Path) -> None:
    gate = GateTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "build"})),
        reply(text("after steer")),
        reply(text("done")),
    )
    shell = CodingAgent(ShellOptions(cwd=project, stream_fn=stream, tool_objects=[gate]))
    rpc = Rpc(shell)
    assert (await rpc.send(type="prompt", id="p", message="go"))["success"]
    await gate.started.wait()
    refused = await rpc.send(type="prompt", id="x", message="no behaviour")
    assert refused["success"] is False and "streamingBehavior" in refused["error"]
    await rpc.send(type="prompt", id="s", message="a steer", streamingBehavior="steer")
    await rpc.send(type="follow_up", id="f", message="a follow-up")
    await rpc.send(type="follow_up", id="f2", message="dropped")
    queue = (await rpc.send(type="get_queue", id="q"))["data"]["items"]
    assert [(i["kind"], i["text"]) for i in queue] == [
        ("steer", "a steer"),
        ("follow_up", "a follow-up"),
        ("follow_up", "dropped"),
    ]
    edited = await rpc.send(
        type="edit_queued", id="e", itemId=queue[1]["id"], text="edited follow-up"
    )
    assert [i["text"] for i in edited["data"]["items"]] == [
        "a steer",
        "edited follow-up",
        "dropped",
    ]
    await rpc.send(type="remove_queued", id="r", itemId=queue[2]["id"])
    moved = await rpc.send(type="move_queued", id="m", itemId=queue[0]["id"], index=5)
    assert moved["success"] and len(moved["data"]["items"]) == 2
    missing = await rpc.send(type="remove_queued", id="gone", itemId="q999")
    assert missing["success"] is False and "q999" in missing["error"]
    assert (await rpc.send(type="get_state", id="st"))["data"]["pendingMessageCount"] == 2
    gate.release.set()
    await rpc.server.drain()
    assert stream.user_texts(1) == ["go", "a steer"]
    assert stream.user_texts(2) == ["go", "a steer", "edited follow-up"]
    changed = [x for x in rpc.lines() if x["type"] == "queue_changed"]
    assert changed and changed[-1]["items"] == []
    assert not any(x["type"] == "shell_state" for x in rpc.lines())


async def test_abort_returns_the_queue_as_an_event(project: Path) -> None:
    gate = GateTool()
    stream = ScriptedStream(reply(tool_call("c1", "bash", {"command": "build"})))
    shell = CodingAgent(ShellOptions(cwd=project, stream_fn=stream, tool_objects=[gate]))
    rpc = Rpc(shell)
    await rpc.send(type="prompt", id="p", message="go")
    await gate.started.wait()
    await rpc.send(type="steer", id="s", message="kept")
    await rpc.send(type="abort", id="a")
    await asyncio.wait_for(rpc.server.drain(), 5)
    (returned,) = [x for x in rpc.lines() if x["type"] == "queue_returned"]
    assert returned["reason"] == "aborted" and [i["text"] for i in returned["items"]] == ["kept"]
    assert stream.calls == 1
