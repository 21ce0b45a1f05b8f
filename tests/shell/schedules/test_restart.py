"""Schedules live in the session: ``pi -c`` restores them, firings missed while pi was closed are
said and a catch-up is offered (yes: one firing; no: the next one; nobody: nothing fires);
``/tree`` sees them as they were, a fork keeps them, ``/new`` has none."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pi_cli.shell.events import DialogRequested, DialogResolved, Notice
from pi_cli.shell.events.long_running import ScheduleFired
from pi_cli.shell.schedules._timing import format_time
from pi_cli.shell.session.entries import entry_problem
from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.fakes.clock import ManualClock
from tests.shell.schedules.helpers import make_shell, schedule_entries


async def closed_with_a_loop(tmp_path: Path, clock: ManualClock) -> str:
    """A session with a 60 s loop that fired once, then pi closed."""
    stream = ScriptedStream(reply(text("deployed?")))
    shell = make_shell(tmp_path, stream, clock)
    await asyncio.sleep(0)
    created = shell.schedules.create("check the deploy", every_s=60)
    clock.advance(60)
    await shell.wait_idle()
    assert stream.calls == 1
    await shell.aclose()
    return created.id


def answering(shell_events: list[Any], answer: object) -> tuple[list[Any], Any]:
    answered: list[DialogRequested] = []
    holder: dict[str, Any] = {}

    def on_event(event: Any) -> None:
        shell_events.append(event)
        if isinstance(event, DialogRequested):
            answered.append(event)
            if answer is not None:
                holder["shell"].answer(event.id, answer)

    return answered, (on_event, holder)


async def reopen(tmp_path: Path, clock: ManualClock, answer: object, **options: Any) -> Any:
    events: list[Any] = []
    asked, (listener, holder) = answering(events, answer)
    stream = ScriptedStream(reply(text("caught up")), reply(text("later")))
    shell = make_shell(tmp_path, stream, clock, None, continue_session=True, **options)
    holder["shell"] = shell
    shell.subscribe(listener)
    for _ in range(10):
        await asyncio.sleep(0)
    await shell.wait_idle()
    return shell, stream, events, asked


async def test_missed_firings_are_said_and_a_yes_fires_once(tmp_path: Path) -> None:
    clock = ManualClock()
    loop_id = await closed_with_a_loop(tmp_path, clock)
    clock.t += 3 * 60 + 10  # three firings fell due while pi was closed
    shell, stream, events, asked = await reopen(tmp_path, clock, True)
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert (
        f"3 firings of loop {loop_id} (every 1m: 'check the deploy') missed while pi was "
        "closed." in notices
    )
    assert len(asked) == 1 and asked[0].kind == "confirm" and asked[0].source == "loop"
    assert "missed 3 firings" in (asked[0].message or "")
    fired = [e for e in events if isinstance(e, ScheduleFired)]
    assert [(e.firing, e.catch_up, e.missed, e.delivered) for e in fired] == [(2, True, 3, "now")]
    assert stream.calls == 1  # one firing, not the backlog
    due = shell.schedules.find(loop_id).next_due()
    assert due == clock.t + 60
    clock.advance(60)
    await shell.wait_idle()
    assert stream.calls == 2
    await shell.aclose()


async def test_a_no_fires_nothing_and_waits_for_the_next_firing(tmp_path: Path) -> None:
    clock = ManualClock()
    loop_id = await closed_with_a_loop(tmp_path, clock)
    clock.t += 600
    shell, stream, events, asked = await reopen(tmp_path, clock, False)
    assert len(asked) == 1 and stream.calls == 0
    assert not any(isinstance(e, ScheduleFired) for e in events)
    schedule = shell.schedules.find(loop_id)
    assert schedule.next_due() == clock.t + 60
    said = [e.text for e in events if isinstance(e, Notice)]
    assert f"Loop {loop_id}: not caught up; next firing {format_time(clock.t + 60)}" in said
    assert schedule_entries(shell)[-1]["skippedAt"] == clock.t  # a later restart counts on
    clock.advance(59)
    assert stream.calls == 0
    clock.advance(1)
    await shell.wait_idle()
    assert stream.calls == 1
    assert schedule_entries(shell)[-1]["skippedAt"] == clock.t - 60
    await shell.aclose()


async def test_while_nobody_answers_nothing_fires(tmp_path: Path) -> None:
    clock = ManualClock()
    loop_id = await closed_with_a_loop(tmp_path, clock)
    clock.t += 3600
    shell, stream, events, asked = await reopen(tmp_path, clock, None)
    assert len(asked) == 1 and stream.calls == 0
    clock.advance(3600)  # the loop waits for its answer: no timer for it meanwhile
    assert stream.calls == 0 and not any(isinstance(e, ScheduleFired) for e in events)
    shell.dialogs.cancel_all()  # the front end went away: not caught up
    for _ in range(5):
        await asyncio.sleep(0)
    assert any(isinstance(e, DialogResolved) for e in events)
    assert shell.schedules.find(loop_id).next_due() == clock.t + 60
    assert stream.calls == 0
    await shell.aclose()


async def test_one_shot_mode_stores_but_never_fires_nor_asks(tmp_path: Path) -> None:
    clock = ManualClock()
    loop_id = await closed_with_a_loop(tmp_path, clock)
    clock.t += 3600
    shell, stream, events, asked = await reopen(tmp_path, clock, True, approvals="none")
    assert asked == [] and stream.calls == 0 and not shell.schedules.live
    assert shell.schedules.find(loop_id).fired == 1
    assert "schedule_create" not in [t.name for t in shell.agent.tools]  # nothing would fire
    await shell.aclose()


async def test_tree_fork_and_new_session(tmp_path: Path) -> None:
    clock = ManualClock()
    stream = ScriptedStream(reply(text("a")), reply(text("b")))
    shell = make_shell(tmp_path, stream, clock)
    await shell.submit("hello")
    before = shell.session.leaf_id
    created = shell.schedules.create("poll", every_s=3600)
    assert "[loop] poll" in [e.preview for e in shell.tree_entries()]
    for entry in schedule_entries(shell):
        assert entry_problem(entry) is None
    assert before is not None
    shell.navigate_to(before)  # /tree to before it was created: no loop there
    assert shell.schedules.active() == []
    shell.navigate_to(schedule_entries(shell)[0]["id"])
    assert [s.id for s in shell.schedules.active()] == [created.id]
    clock.advance(3600)
    await shell.wait_idle()
    shell.fork()  # the fork keeps it
    assert [s.id for s in shell.schedules.active()] == [created.id]
    shell.new_session()
    assert shell.schedules.active() == []
    await shell.aclose()


def test_damaged_schedule_entries_are_reported() -> None:
    good = {
        "type": "schedule", "scheduleId": "ab12cd34", "prompt": "p", "kind": "interval",
        "createdAt": 1.0, "everyS": 60, "status": "active", "fired": 0,
    }  # fmt: skip
    assert entry_problem(good) is None
    assert entry_problem({**good, "everyS": 0}) == "its interval is not a count of seconds"
    assert entry_problem({**good, "kind": "weekly"}) == "its kind 'weekly' is unknown"
    assert entry_problem({**good, "fired": -1}) == "its firings are not a count"
    assert entry_problem({**good, "until": "soon"}) == "a time is not a time"
    assert entry_problem({**good, "kind": "cron"}) == "its cron is not text"


async def test_stopping_a_loop_ends_its_open_catch_up_question(tmp_path: Path) -> None:
    clock = ManualClock()
    loop_id = await closed_with_a_loop(tmp_path, clock)
    clock.t += 3600
    shell, stream, events, asked = await reopen(tmp_path, clock, None)
    assert len(asked) == 1
    result = await shell.submit(f"/loop stop {loop_id}")
    assert result is not None and not result.error
    for _ in range(5):
        await asyncio.sleep(0)
    resolved = [e for e in events if isinstance(e, DialogResolved)]
    assert [(e.id, e.by) for e in resolved] == [(asked[0].id, "aborted")]
    assert shell.dialogs.pending == [] and stream.calls == 0
    await shell.aclose()
