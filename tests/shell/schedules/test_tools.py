"""The model's schedule_create / schedule_list / schedule_delete through a scripted model:
creating asks in the default mode, listing does not; the result texts and details."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from agent_core import ToolCall, validate_arguments
from pi_cli.shell.events import PermissionRequested
from pi_cli.shell.events.long_running import SchedulesChanged
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.fakes.clock import ManualClock
from tests.shell.schedules.helpers import make_shell, schedule_entries


def tool_results(stream: ScriptedStream, call: int) -> list[str]:
    out = []
    for message in stream.contexts[call].messages:
        if message.role == "toolResult":
            out.append("".join(getattr(b, "text", "") for b in message.content))
    return out


async def test_the_model_creates_lists_and_deletes_schedules(tmp_path: Path) -> None:
    clock = ManualClock(t=1_795_990_400.0)  # 2026-11-29 22:13:20 UTC
    stream = ScriptedStream(
        reply(tool_call("c1", "schedule_create", {"cron": "*/15 * * * *", "prompt": "poll CI"})),
        reply(
            tool_call(
                "c2", "schedule_create", {"interval": "2h", "prompt": "standup", "max_firings": 3}
            )
        ),  # fmt: skip
        reply(tool_call("c3", "schedule_list", {})),
        reply(text("scheduled")),
    )
    events: list[Any] = []
    asked: list[PermissionRequested] = []
    shell = make_shell(tmp_path, stream, clock, events, permission_mode="default")

    def approve(event: Any) -> None:
        if isinstance(event, PermissionRequested):
            asked.append(event)
            shell.answer(event.id, "allow_once")

    shell.subscribe(approve)
    offered = [t["name"] if isinstance(t, dict) else t.name for t in stream_tools(shell)]
    assert {"schedule_create", "schedule_list", "schedule_delete"} <= set(offered)
    await shell.submit("watch CI")
    await shell.wait_idle()
    assert [a.tool_name for a in asked] == ["schedule_create", "schedule_create"]  # list: no ask
    assert asked[0].reason == "schedule_create is not known to be safe"
    created, second = shell.schedules.active()
    results = tool_results(stream, 3)
    assert results[0] == (
        f"Scheduled {created.id}: every 15 minutes (UTC); next firing 2026-11-29 22:15 UTC."
    )
    assert results[1].startswith(f"Scheduled {second.id}: every 2h (0/3 firings); next firing")
    assert (
        f"{created.id}  every 15 minutes (UTC), fired 0, next 2026-11-29 22:15 UTC: poll CI"
        in results[2]
    )
    assert created.by == "model" and schedule_entries(shell)[0]["by"] == "model"
    assert isinstance(events[-1], object)
    changed = [e for e in events if isinstance(e, SchedulesChanged)][-1]
    assert [s.created_by for s in changed.schedules] == ["model", "model"]
    assert changed.model_dump(by_alias=True)["schedules"][0]["nextFireAt"] == (
        "2026-11-29T22:15:00Z"
    )

    stream.responses.extend([
        reply(tool_call("d1", "schedule_delete", {"id": created.id})),
        reply(tool_call("d2", "schedule_delete", {"id": "nope"})),
        reply(tool_call("d3", "schedule_create", {"cron": "0 0 30 2 *", "prompt": "never"})),
        reply(text("done")),
    ])  # fmt: skip
    await shell.submit("stop polling")
    await shell.wait_idle()
    results = tool_results(stream, 7)[-3:]
    assert results[0] == f"Deleted {created.id} (every 15 minutes (UTC))."
    assert results[1].startswith("No active schedule 'nope'")
    assert results[2] == "'0 0 30 2 *' never fires: it matches no real date"
    assert [s.id for s in shell.schedules.active()] == [second.id]
    await shell.aclose()


async def test_creating_is_denied_in_plan_like_modes_without_an_answer(tmp_path: Path) -> None:
    clock = ManualClock()
    stream = ScriptedStream(
        reply(tool_call("c1", "schedule_create", {"interval": "5m", "prompt": "x"})),
        reply(text("ok")),
    )
    shell = make_shell(tmp_path, stream, clock, permission_mode="dontAsk")
    await shell.submit("go")
    await shell.wait_idle()
    assert shell.schedules.active() == []
    assert "dontAsk" in json.dumps(tool_results(stream, 1))
    await shell.aclose()


def stream_tools(shell: Any) -> list[Any]:
    return list(shell.agent.tools)


async def test_a_sub_agent_never_gets_the_schedule_tools(tmp_path: Path) -> None:
    from tools import AGENT_TOOL_NAMES

    shell = make_shell(tmp_path, ScriptedStream(), ManualClock())
    assert "schedule_create" in [t.name for t in shell.tools]
    child = [t.name for t in shell.agent_tools.runner._tools(None, AGENT_TOOL_NAMES)]
    assert child and not any(name.startswith("schedule_") for name in child)
    await shell.aclose()


def test_schedule_create_refuses_what_it_does_not_know() -> None:
    # Its arguments forbid unknown keys (a misspelt bound must not be dropped silently).
    from pi_cli.shell.schedules._tools import CreateArgs

    tool = SimpleNamespace(name="schedule_create", parameters=CreateArgs)

    def error(arguments: dict[str, Any]) -> str | None:
        call = ToolCall(id="c", name="schedule_create", arguments=arguments)
        return validate_arguments(tool, call)[1]  # type: ignore[arg-type]

    assert error({"prompt": "p", "interval": "5m"}) is None
    assert error({"prompt": "p", "interval": "5m", "max_fires": 3}) == (
        "Invalid arguments for tool schedule_create: max_fires: unknown field (not accepted)"
    )
    assert error({"prompt": "p", "max_firings": 0}) == (
        "Invalid arguments for tool schedule_create: max_firings: Expected `int` >= 1"
    )
    assert error({"prompt": "x" * 20_000}) == (
        "Invalid arguments for tool schedule_create: prompt: Expected `str` of length <= 16000"
    )
