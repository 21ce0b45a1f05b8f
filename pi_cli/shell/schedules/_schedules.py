"""The session's schedules and the one timer that fires them (see :mod:`pi_cli.shell.schedules`)."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.shell.context import ShellContext
from pi_cli.shell.events import SessionChanged, ShellEvent
from pi_cli.shell.events.long_running import (
    ScheduleDelivery,
    ScheduleFired,
    ScheduleKind,
    SchedulesChanged,
)
from pi_cli.shell.schedules._clock import Clock, LoopClock, Timer

if TYPE_CHECKING:  # the state and timing modules load with the first schedule (not on -p)
    from pi_cli.shell.commands import CommandResult, SlashCommandRegistry
    from pi_cli.shell.dialogs import DialogBroker
    from pi_cli.shell.events import ShellState
    from pi_cli.shell.input_queue import InputQueue, QueuedInput
    from pi_cli.shell.options import ShellOptions
    from pi_cli.shell.schedules._state import Creator, Schedule

log = logging.getLogger("pi_cli")
MAX_SLEEP_S = 600.0
"""The timer wakes at least this often to notice a clock that jumped (a suspended laptop: the
event loop's monotonic clock does not count the sleep)."""
MAX_FIRINGS = 1_000_000
SCHEDULE = "schedule"


class ScheduleError(ValueError):
    """A schedule cannot be created or found (the message is for the user or the model)."""


class ScheduleHost(ShellContext, Protocol):
    """What schedules use of the shell (the CodingAgent satisfies it)."""

    @property
    def options(self) -> ShellOptions: ...
    @property
    def commands(self) -> SlashCommandRegistry: ...
    @property
    def queue(self) -> InputQueue: ...
    @property
    def dialogs(self) -> DialogBroker: ...
    @property
    def state(self) -> ShellState: ...
    @property
    def busy(self) -> bool: ...
    def queued(self) -> list[QueuedInput]: ...
    def submit(self, text: str, intent: Any = "auto") -> asyncio.Future[CommandResult | None]: ...
    def subscribe(self, listener: Callable[[ShellEvent], None]) -> Callable[[], None]: ...


class Schedules:
    """The session's active schedules, and one timer for the next firing.

    Nothing fires until :meth:`begin` (a front end that can run prompts subscribed: the TUI, the
    plain REPL, RPC, ``pi serve``); one-shot and JSON mode only store what is created.
    """

    def __init__(self, shell: ScheduleHost, clock: Clock | None = None) -> None:
        self.shell = shell
        self.clock: Clock = clock or LoopClock()
        self.items: dict[str, Schedule] = {}
        self.live = False
        self._timer: Timer | None = None
        self._asking: set[str] = set()  # catch-up questions waiting for the user
        self._tasks: dict[str, asyncio.Future[Any]] = {}  # catch-up questions by schedule id

    # ------------------------------------------------------------------ reading

    def active(self) -> list[Schedule]:
        """The active schedules, the next to fire first."""
        return sorted(self.items.values(), key=lambda s: (s.next_due() or float("inf"), s.id))

    def find(self, ref: str) -> Schedule:
        """The schedule with id ``ref`` (a unique prefix is enough); raises ScheduleError."""
        ref = ref.strip()
        found = [s for s in self.items.values() if ref and s.id.startswith(ref)]
        if len(found) != 1:
            known = ", ".join(sorted(self.items)) or "none"
            raise ScheduleError(f"No active schedule {ref!r} (active: {known})")
        return found[0]

    def event(self) -> SchedulesChanged:
        """The active schedules as an event (what a front end shows at start)."""
        return SchedulesChanged(schedules=[s.info() for s in self.active()])

    # ------------------------------------------------------------------ changes

    def create(
        self,
        prompt: str,
        *,
        every_s: int | None = None,
        cron: str | None = None,
        at: float | None = None,
        recurring: bool = True,
        max_firings: int | None = None,
        for_s: int | None = None,
        by: Creator = "user",
        fire_now: bool = False,
    ) -> Schedule:
        """A new schedule, stored and armed (``fire_now``: its first firing now)."""
        from pi_cli.shell.schedules._state import MAX_ACTIVE, MAX_PROMPT_CHARS, Schedule
        from pi_cli.shell.schedules._timing import TimingError

        prompt = prompt.strip()
        if not prompt:
            raise ScheduleError("A schedule needs a prompt")
        if len(prompt) > MAX_PROMPT_CHARS:
            raise ScheduleError(
                f"A scheduled prompt is at most {MAX_PROMPT_CHARS:,} characters "
                f"(this one has {len(prompt):,})"
            )
        if sum(x is not None for x in (every_s, cron, at)) != 1:
            raise ScheduleError("A schedule needs exactly one of an interval, a cron expression "
                                "or a time")  # fmt: skip
        if len(self.items) >= MAX_ACTIVE:
            raise ScheduleError(f"At most {MAX_ACTIVE} schedules are active at once: stop one")
        if max_firings is not None and not 1 <= max_firings <= MAX_FIRINGS:
            raise ScheduleError(f"--max is a count from 1 to {MAX_FIRINGS:,}")
        now = self.clock.now()
        kind: ScheduleKind = (
            "interval" if every_s is not None else "cron" if cron is not None else "once"
        )
        try:
            schedule = Schedule.new(
                prompt, kind, now, every_s=every_s, cron=cron, at=at,
                recurring=recurring and kind != "once", max_firings=max_firings,
                until=now + for_s if for_s is not None else None, by=by,
            )  # fmt: skip
        except TimingError as exc:
            raise ScheduleError(str(exc)) from None
        if schedule.next_due() is None and not fire_now:
            raise ScheduleError(f"{schedule.describe()} never fires within its bounds")
        self.items[schedule.id] = schedule
        self._store(schedule)
        if fire_now and self.live:
            self._fire(schedule, now)
        self._changed()
        return schedule

    def create_from_text(
        self,
        prompt: str,
        *,
        cron: str | None = None,
        interval: str | None = None,
        at: str | None = None,
        recurring: bool = True,
        max_firings: int | None = None,
        expires_in: str | None = None,
        by: Creator = "model",
    ) -> Schedule:
        """:meth:`create` from the words of ``schedule_create`` and RPC's ``create_schedule``
        (``"5m"``, ``"14:30"``, ``"8h"``); raises ScheduleError."""
        from pi_cli.shell.schedules._timing import TimingError, parse_at, parse_interval

        try:
            return self.create(
                prompt, cron=cron, every_s=parse_interval(interval) if interval else None,
                at=parse_at(at, self.clock.now()) if at else None, recurring=recurring,
                max_firings=max_firings, for_s=parse_interval(expires_in) if expires_in else None,
                by=by,
            )  # fmt: skip
        except TimingError as exc:
            raise ScheduleError(str(exc)) from None

    def delete(self, ref: str) -> Schedule:
        """Stop a schedule (raises ScheduleError when there is none such); its catch-up
        question, if one is open, ends."""
        schedule = self.find(ref)
        if (question := self._tasks.get(schedule.id)) is not None:
            question.cancel()
        schedule.status, schedule.reason = "deleted", "stopped"
        self._store(schedule)
        del self.items[schedule.id]
        self._changed()
        return schedule

    def delete_all(self) -> int:
        """Stop every schedule; how many there were."""
        count = len(self.items)
        for schedule in list(self.items.values()):
            self.delete(schedule.id)
        return count

    def _store(self, schedule: Schedule) -> None:
        self.shell.session.append(SCHEDULE, **schedule.entry())

    def _changed(self) -> None:
        self.shell.emit(self.event())
        self._arm()

    # ------------------------------------------------------------------ session

    def restore(self, reason: str = "start") -> None:
        """The schedules of the session's current branch (at start, resume, /new, fork, /tree)."""
        store = self.shell.session
        refs = [ref for ref in store.path_to() if ref.type == SCHEDULE]
        latest: dict[str, Schedule] = {}
        if refs:
            from pi_cli.shell.schedules._state import Schedule
        for data in store.iter_entries(refs):
            try:
                schedule = Schedule.from_entry(data)
            except (KeyError, TypeError, ValueError):
                continue  # the entry validator already reported it
            latest[schedule.id] = schedule
        self.items = {i: s for i, s in latest.items() if s.status == "active"}
        self._asking.clear()
        if self.live:
            self._missed(reason)
        self._changed()

    def on_event(self, event: ShellEvent) -> None:
        if isinstance(event, SessionChanged):
            self.restore(event.reason)

    def begin(self) -> None:
        """A front end that can run prompts subscribed: on the loop's next round, missed firings
        are offered and the timer runs (once; not in one-shot or JSON mode, nor from a thread
        the shell is built in: the front end's own subscribe starts them on its loop)."""
        if self.live or self.shell.options.approvals == "none":
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self.live = True
        loop.call_soon(self._start)

    def _start(self) -> None:
        if self.live:  # not closed meanwhile
            self._missed("start")
            self._changed()

    def _missed(self, reason: str) -> None:
        """Firings that fell due while pi was closed: said, and a catch-up offered."""
        now = self.clock.now()
        for schedule in list(self.items.values()):
            count = schedule.missed(now)
            if not count:
                continue
            if reason == "tree":  # the branch as it was there, counting from now
                schedule.skipped_at = now
                continue
            firings = f"{count:,}{'+' if count >= 10_000 else ''} firing{'s' if count != 1 else ''}"
            self.shell.notify(
                f"{firings} of loop {schedule.id} ({schedule.describe()}: "
                f"'{schedule.title()}') missed while pi was closed.",
                "warning",
            )
            self._asking.add(schedule.id)
            task = asyncio.ensure_future(self._offer(schedule, count))
            self._tasks[schedule.id] = task
            task.add_done_callback(functools.partial(self._forget, schedule.id))

    async def _offer(self, schedule: Schedule, missed: int) -> None:
        """Ask whether to catch up: yes fires it once now (never the backlog)."""
        try:
            yes = await self.shell.dialogs.confirm(
                f"Catch up on loop {schedule.id}?",
                f"'{schedule.title(200)}' ({schedule.describe()}) missed {missed:,} "
                f"firing{'s' if missed != 1 else ''} while pi was closed. Fire it once now? "
                "(No: wait for its next firing.)",
                source="loop",
            )
        except Exception:
            log.exception("catch-up question failed")
            yes = False
        finally:
            self._asking.discard(schedule.id)
        if self.items.get(schedule.id) is not schedule:
            return  # stopped, or another session, meanwhile
        now = self.clock.now()
        if yes:
            self._fire(schedule, now, catch_up=missed)
        else:
            schedule.skipped_at = now
            if schedule.next_due() is None:
                self._end(schedule, "its time passed while pi was closed (not caught up)")
            else:
                self._store(schedule)  # a later restart counts from here
            self.shell.notify(f"Loop {schedule.id}: not caught up; {self._next_words(schedule)}")
        self._changed()

    def _forget(self, key: str, done: asyncio.Future[Any]) -> None:
        if self._tasks.get(key) is done:
            del self._tasks[key]

    @staticmethod
    def _next_words(schedule: Schedule) -> str:
        from pi_cli.shell.schedules._timing import format_time

        due = schedule.next_due()
        return f"next firing {format_time(due)}" if due is not None else "it has ended"

    # ------------------------------------------------------------------ the timer

    def _arm(self) -> None:
        """One timer, for the soonest firing (none while nothing is due)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self.live:
            return
        dues = [
            due
            for s in self.items.values()
            if s.id not in self._asking and (due := s.next_due()) is not None
        ]
        if not dues:
            return
        delay = min(max(min(dues) - self.clock.now(), 0.0), MAX_SLEEP_S)
        self._timer = self.clock.call_later(delay, self._tick)

    def _tick(self) -> None:
        self._timer = None
        now = self.clock.now()
        fired = False
        for schedule in self.active():
            due = schedule.next_due()
            if schedule.id not in self._asking and due is not None and due <= now:
                self._fire(schedule, now)  # late (a busy or sleeping machine): once
                fired = True
        if fired:
            self.shell.emit(self.event())
        self._arm()

    def stop(self) -> None:
        """No more firings (the shell closes)."""
        self.live = False
        self._arm()
        for task in list(self._tasks.values()):
            task.cancel()

    # ------------------------------------------------------------------ firing

    def _fire(self, schedule: Schedule, now: float, catch_up: int = 0) -> None:
        command = self.shell.commands.lookup(schedule.prompt) is not None
        text = schedule.prompt if command else schedule.firing_text()  # /review runs as typed
        how = self._how(text)
        if how != "skipped":
            schedule.fired += 1
        schedule.last_fired_at = now
        self.shell.emit(
            ScheduleFired(
                schedule_id=schedule.id, prompt=schedule.prompt, schedule=schedule.describe(),
                firing=schedule.fired, delivered=how, catch_up=bool(catch_up), missed=catch_up,
            )
        )  # fmt: skip
        if schedule.next_due() is None:
            self._end(schedule, schedule.end_reason())
        else:
            self._store(schedule)
        self._send(text, how)

    def _end(self, schedule: Schedule, reason: str) -> None:
        schedule.status, schedule.reason = "ended", reason
        self._store(schedule)
        self.items.pop(schedule.id, None)
        self.shell.notify(f"Loop {schedule.id} ended: {reason}.")

    def _how(self, text: str) -> ScheduleDelivery:
        if any(item.text == text for item in self.shell.queued()):
            return "skipped"  # its last firing waits still: no backlog
        if not self.shell.busy:
            return "now"
        if self.shell.commands.lookup(text) is not None or self.shell.state != "running":
            return "held"
        return "follow_up"

    def _send(self, text: str, how: ScheduleDelivery) -> None:
        if how == "skipped":
            return
        if how == "held":
            self.shell.queue.add(text, "held")
            return
        future = self.shell.submit(text, "follow_up" if how == "follow_up" else "auto")
        future.add_done_callback(_report)


def _report(future: asyncio.Future[Any]) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.error("a scheduled prompt failed", exc_info=future.exception())
