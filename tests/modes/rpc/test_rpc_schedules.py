"""RPC's schedule commands: create, list and delete loops; events; bad input is an error."""

from __future__ import annotations

from pathlib import Path

from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from tests.agent_core.scripted_stream import ScriptedStream
from tests.fakes.clock import ManualClock
from tests.modes.rpc.test_rpc_queue import Rpc


async def test_create_list_and_delete_schedules_over_rpc(tmp_path: Path) -> None:
    shell = CodingAgent(ShellOptions(cwd=tmp_path, stream_fn=ScriptedStream(), approvals="remote"))
    shell.schedules.clock = ManualClock(t=1_796_000_000.0)  # 2026-11-30 00:53:20 UTC
    rpc = Rpc(shell)
    try:
        made = await rpc.send(
            type="create_schedule", id="c", prompt="poll CI", cron="*/15 * * * *", maxFirings=4
        )
        assert made["success"], made
        info = made["data"]["schedule"]
        assert info["nextFireAt"] == "2026-11-30T01:00:00Z" and info["maxFirings"] == 4
        assert info["createdBy"] == "user" and info["schedule"] == "every 15 minutes (UTC)"
        second = await rpc.send(type="create_schedule", id="d", prompt="x", interval="1h")
        listed = await rpc.send(type="get_schedules", id="l")
        assert [s["id"] for s in listed["data"]["schedules"]] == [
            info["id"],
            second["data"]["schedule"]["id"],
        ]
        events = [x for x in rpc.lines() if x["type"] == "schedules_changed"]
        assert len(events[-1]["schedules"]) == 2
        for bad, problem in [
            ({"prompt": "x", "interval": "0s"}, "too short"),
            ({"prompt": "x", "cron": "0 0 30 2 *"}, "never fires"),
            ({"prompt": "x"}, "exactly one of"),
            ({"prompt": "x" * 20_000, "interval": "5m"}, "at most 16,000"),
            ({"prompt": "x", "interval": 5}, "interval"),
        ]:
            refused = await rpc.send(type="create_schedule", id="bad", **bad)
            assert not refused["success"] and problem in refused["error"], (bad, refused)
        gone = await rpc.send(type="delete_schedule", id="x", scheduleId=info["id"][:3])
        assert gone["data"] == {"deleted": [info["id"]]}
        missing = await rpc.send(type="delete_schedule", id="y", scheduleId="zzz")
        assert not missing["success"] and "No active schedule 'zzz'" in missing["error"]
        rest = await rpc.send(type="delete_schedule", id="z", scheduleId="all")
        assert rest["data"] == {"deleted": [second["data"]["schedule"]["id"]]}
    finally:
        await shell.aclose()
