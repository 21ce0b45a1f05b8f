"""A loop's firings are normal prompts: a run when idle, a follow-up of the live run (never
mid-turn), skipped while the last one still waits; /loop list and stop; bounds."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent_core import AgentEnd, AgentStart, TurnStart
from pi_cli.shell.events.long_running import ScheduleFired, SchedulesChanged
from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.fakes.clock import ManualClock
from tests.shell.schedules.helpers import make_shell, schedule_entries


async def settle(shell: Any) -> None:
    for _ in range(5):
        await asyncio.sleep(0)
    await shell.wait_idle()


async def test_a_loop_fires_three_times_while_a_run_is_live_as_follow_ups(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    stream = ScriptedStream(*[reply(text(f"answer {i}")) for i in range(5)])
    events: list[Any] = []
    shell = make_shell(tmp_path, stream, clock, events)
    created = shell.schedules.create("check the deploy", every_s=1)

    def on_call(index: int, context: Any) -> None:  # mid-turn: the request is being made
        if index < 3:
            assert shell.state == "running"
            assert clock.advance(1) == 1  # one firing, queued as a follow-up of this run

    stream.on_call = on_call
    await shell.submit("start the deploy")
    await shell.wait_idle()

    fired = [e for e in events if isinstance(e, ScheduleFired)]
    assert [(e.firing, e.delivered) for e in fired] == [
        (1, "follow_up"),
        (2, "follow_up"),
        (3, "follow_up"),
    ]
    assert sum(isinstance(e, AgentStart) for e in events) == 1  # one run, never interleaved
    assert sum(isinstance(e, AgentEnd) for e in events) == 1
    assert sum(isinstance(e, TurnStart) for e in events) == 4
    marker = f"[scheduled {created.id}, every 1s] check the deploy"
    assert stream.user_texts(3) == ["start the deploy", marker, marker, marker]
    roles = stream.roles(3)
    assert roles == ["user", "assistant", "user", "assistant", "user", "assistant", "user"]
    assert [e["fired"] for e in schedule_entries(shell)] == [0, 1, 2, 3]
    await shell.aclose()


async def test_an_idle_shell_runs_a_firing_and_a_waiting_one_is_not_repeated(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    stream = ScriptedStream(reply(text("one")), reply(text("two")))
    events: list[Any] = []
    shell = make_shell(tmp_path, stream, clock, events)
    result = await shell.submit("/loop 5m --max 2 check")  # options after the interval: prompt
    assert not result.error and "every 5m" in result.output
    await settle(shell)
    assert stream.calls == 1  # fired now, as Claude Code's /loop does
    assert stream.user_texts(0)[-1].endswith("] --max 2 check")
    shell.schedules.delete_all()

    result = await shell.submit("/loop --max 2 5m check")
    assert "(1/2 firings)" in result.output
    await settle(shell)
    assert stream.calls == 2
    clock.advance(300)  # the second and last firing
    await settle(shell)
    assert "ended: it fired 2 times (its --max)" in " ".join(
        e.text for e in events if type(e).__name__ == "Notice"
    )
    assert shell.schedules.active() == []
    assert isinstance(events[-1], object)
    last = [e for e in events if isinstance(e, SchedulesChanged)][-1]
    assert last.schedules == []
    await shell.aclose()


async def test_a_firing_whose_last_one_still_waits_is_skipped(tmp_path: Path) -> None:
    clock = ManualClock()
    stream = ScriptedStream(reply(text("x"), hang=True))
    events: list[Any] = []
    shell = make_shell(tmp_path, stream, clock, events)
    shell.schedules.create("/compact", every_s=60)  # a command: held until the shell is free
    task = asyncio.ensure_future(shell.submit("long run"))
    await stream.hanging.wait()
    clock.advance(60)
    clock.advance(60)
    fired = [e for e in events if isinstance(e, ScheduleFired)]
    assert [(e.firing, e.delivered) for e in fired] == [(1, "held"), (1, "skipped")]
    assert [item.text for item in shell.queued()] == ["/compact"]  # as typed, no marker
    shell.abort()
    await task
    await shell.wait_idle()
    await shell.aclose()
