"""RPC's background sub-agent commands and events, on the fake provider (real HTTP)."""

from __future__ import annotations

from pathlib import Path

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn
from tests.modes.rpc.test_rpc_queue import Rpc
from tests.shell.agent_tools.test_background import bash, bg_task, shell_for, until, wait_file


async def test_list_show_steer_and_abort_over_rpc(project: Path) -> None:
    with FakeProviderServer() as server:
        server.add(
            Turn(tool_calls=[bg_task("t1", "CHILD-A: wait"), bg_task("t2", "CHILD-B: wait")]),
            Turn(text="Started both."),
            Turn(text="A was stopped."),
            Turn(text="B reported."),
        )
        server.routes["CHILD-A"] = [Turn(tool_calls=[bash("c1", "sleep 600")])]
        server.routes["CHILD-B"] = [
            Turn(tool_calls=[bash("c2", wait_file("go"))]),
            Turn(text="B saw the steer"),
        ]
        shell = shell_for(project, server, tools=["bash", "task"], persist_session=False)
        rpc = Rpc(shell)
        try:
            assert (await rpc.send(type="prompt", id="p", message="start both"))["success"]
            await shell.wait_idle()
            await until(lambda: len(server.requests) >= 4, "both children's first calls")
            listed = (await rpc.send(type="get_agents", id="l"))["data"]["agents"]
            assert [(a["id"], a["status"], a["taskId"]) for a in listed] == [
                ("a1", "running", "t1"),
                ("a2", "running", "t2"),
            ]
            assert listed[0]["lastTool"].startswith("bash")
            one = (await rpc.send(type="get_agent", id="g", agentId="a2"))["data"]
            assert one["messages"][0] == {
                "role": "user",
                "content": [{"type": "text", "text": "CHILD-B: wait"}],
                "timestamp": one["messages"][0]["timestamp"],
            }
            missing = await rpc.send(type="get_agent", id="m", agentId="../a9")
            assert not missing["success"] and "No background agent '../a9'" in missing["error"]
            bad = await rpc.send(type="steer_agent", id="b", agentId="a2")
            assert not bad["success"] and "message" in bad["error"]
            steered = await rpc.send(type="steer_agent", id="s", agentId="a2", message="hurry")
            assert steered["success"]
            stopped = await rpc.send(type="abort_agent", id="x", agentId="a1")
            assert stopped["success"]
            await until(
                lambda: shell.agent_tools.background.get("a1").info.status == "aborted", "a1"
            )
            (project / "go").touch()
            await until(
                lambda: shell.agent_tools.background.get("a2").info.status == "done", "a2 done"
            )
            await until(lambda: not shell.busy and len(server.requests) >= 7, "both reports")
            await shell.wait_idle()
            child_b = [b for b in server.requests if "CHILD-B" in str(b["messages"][1])]
            assert any("hurry" in str(m) for m in child_b[-1]["messages"])  # the steer arrived
            again = await rpc.send(type="abort_agent", id="y", agentId="a1")
            assert not again["success"] and "is aborted" in again["error"]
            events = [x for x in rpc.lines() if x["type"] == "background_agent"]
            assert events[0]["agent"]["status"] == "running"
            assert {e["agent"]["id"] for e in events if e["agent"]["status"] != "running"} == {
                "a1",
                "a2",
            }
            starts = [x for x in rpc.lines() if x["type"] == "subagent_start"]
            assert all(s["background"] is True for s in starts)
        finally:
            await shell.aclose()
