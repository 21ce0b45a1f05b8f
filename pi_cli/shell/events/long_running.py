"""Shell events of long-running work: goals (``/goal``), loops and schedules, monitors.

Their wire shapes (camelCase, as JSON mode and RPC write them) are documented in
``docs/long-running.md`` ("Events"). ``goal_changed`` carries the whole goal each time (or
``null`` once none is set), so a footer or a client needs no other state.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from agent_core.messages import WireModel

GoalStatus = Literal["pursuing", "paused", "met", "unmet", "budget-limited"]
"""``pursuing``: each run ends with a check and, while it fails, another round; ``paused``: kept
but not pursued (``/goal pause``, Esc, a failed run); ``met`` the check passed; ``unmet`` the
judge found it cannot be reached without the user; ``budget-limited`` a budget ended the
pursuit (``maxTurns``, ``maxCost``, ``goal.maxRounds``)."""


class GoalInfo(WireModel, kw_only=True):
    """The goal of the session, as a footer or a client shows it."""

    id: str
    condition: str
    check: str | None = None
    """The command that decides (exit 0 = met); ``None``: a judging request decides."""
    status: GoalStatus
    rounds: int = 0
    """Rounds (model runs) since the goal was set or last resumed."""
    max_rounds: int
    reason: str = ""
    """Why the status is what it is: the last verdict's reason, or what paused or ended it."""
    checking: bool = False
    """The check command or the judge is deciding right now."""

    def short(self, width: int = 32) -> str:
        """For a footer: ``goal pursuing 2/20: the tests pass``, the condition clipped."""
        condition = " ".join(self.condition.split())
        if len(condition) > width:
            condition = condition[: width - 1] + "…"
        state = "checking" if self.checking else self.status
        return f"goal {state} {self.rounds}/{self.max_rounds}: {condition}"

    def line(self) -> str:
        """One line: status, rounds, condition, why."""
        how = f"check: {self.check}" if self.check else "judged"
        why = f" — {self.reason}" if self.reason else ""
        state = "checking" if self.checking else self.status
        return f"goal {state} ({self.rounds}/{self.max_rounds}, {how}): {self.condition}{why}"


class GoalChanged(WireModel, tag_field="type", tag="goal_changed"):
    """The goal was set, checked, paused, resumed, edited, met, ended or dropped (``null``)."""

    type: ClassVar[str] = "goal_changed"
    goal: GoalInfo | None = None


class GoalChecked(WireModel, tag_field="type", tag="goal_checked"):
    """One verdict on the goal after a round: by the check command or by the judge."""

    type: ClassVar[str] = "goal_checked"
    goal_id: str
    round: int
    met: bool
    by: Literal["check", "judge"]
    reason: str
    blocked: bool = False
    """The judge found the goal cannot be reached without the user (the goal is ``unmet``)."""
    exit_code: int | None = None
    """The check command's exit code (``None`` for the judge, a timeout or an abort)."""
    output: str = ""
    """The last lines of the check command's output (what the model is shown when not met)."""

    def line(self) -> str:
        """One line: the round's verdict and its reason."""
        verdict = "met" if self.met else "cannot be met without you" if self.blocked else "not met"
        return f"goal round {self.round}: {verdict} ({self.by}) — {self.reason}"


ScheduleKind = Literal["interval", "cron", "once"]
"""``interval``: ``/loop 5m ...``; ``cron``: a 5-field cron expression (UTC); ``once``: a time."""


class ScheduleInfo(WireModel):
    """One active schedule (a loop, a cron schedule, a one-shot time), as a footer or client
    shows it. Times are ISO 8601 in UTC."""

    id: str
    prompt: str
    kind: ScheduleKind
    schedule: str
    """How it fires, in words: ``every 5m``, ``cron '0 9 * * 1-5' (UTC)``, ``once at ...``."""
    every_s: int | None = None
    cron: str | None = None
    recurring: bool = True
    fired: int = 0
    max_firings: int | None = None
    until: str | None = None
    next_fire_at: str | None = None
    last_fired_at: str | None = None
    created_by: Literal["user", "model"] = "user"


class SchedulesChanged(WireModel, tag_field="type", tag="schedules_changed"):
    """The session's active schedules changed (created, fired, ended, deleted, restored)."""

    type: ClassVar[str] = "schedules_changed"
    schedules: list[ScheduleInfo] = []

    def short(self) -> str:
        """For a footer: ``⏲ 2 loops · next 08:35``, or ``""`` when there is none."""
        if not self.schedules:
            return ""
        count = len(self.schedules)
        name = "loop" if count == 1 else "loops"
        upcoming = sorted(s.next_fire_at for s in self.schedules if s.next_fire_at)
        when = f" · next {upcoming[0][11:16]}" if upcoming else ""
        return f"⏲ {count} {name}{when}"


ScheduleDelivery = Literal["now", "follow_up", "held", "skipped"]
"""``now``: it started a run; ``follow_up``: queued for the live run; ``held``: sent when the
shell is free; ``skipped``: its previous firing was still queued (a backlog is never built)."""


class ScheduleFired(WireModel, tag_field="type", tag="schedule_fired"):
    """A schedule fired: its prompt was sent as a normal prompt (or skipped, see ``delivered``)."""

    type: ClassVar[str] = "schedule_fired"
    schedule_id: str
    prompt: str
    schedule: str
    firing: int
    """Its number (1 = the first firing)."""
    delivered: ScheduleDelivery
    catch_up: bool = False
    """A firing the user accepted after a restart, for ``missed`` firings that fell due while
    pi was closed."""
    missed: int = 0

    def line(self) -> str:
        """``⏲ loop 3f2a1b0c fired (#3, every 5m): check the deploy — queued as a follow-up``."""
        prompt = " ".join(self.prompt.split())
        prompt = prompt if len(prompt) <= 60 else prompt[:59] + "…"
        how = {
            "now": "",
            "follow_up": " — queued as a follow-up",
            "held": " — sent when pi is free",
            "skipped": " — skipped: its previous firing is still queued",
        }[self.delivered]
        catch_up = f", catching up {self.missed} missed" if self.catch_up else ""
        return (
            f"⏲ loop {self.schedule_id} fired (#{self.firing}, {self.schedule}{catch_up}): "
            f"{prompt}{how}"
        )


class MonitorDelivered(WireModel, tag_field="type", tag="monitor_delivered"):
    """A monitor's new lines (or its end) were queued for the model: it reads them at the next
    turn boundary, or a run starts for them (see ``docs/long-running.md``, "Monitors")."""

    type: ClassVar[str] = "monitor_delivered"
    monitor_id: str
    description: str
    lines: list[str]
    dropped: int = 0
    """Matching lines left out (over ``monitor.maxLines``)."""
    truncated: int = 0
    """Lines cut to ``monitor.maxLineBytes``."""
    ended: str | None = None
    """How the monitor ended, on its last delivery (``exited with code 0``...)."""

    @classmethod
    def of(cls, delivery: Any) -> MonitorDelivered:
        """The event for a :class:`tools.bash.monitor.MonitorDelivery`."""
        return cls(
            monitor_id=delivery.id,
            description=delivery.description,
            lines=list(delivery.lines),
            dropped=delivery.dropped,
            truncated=delivery.truncated,
            ended=delivery.ended,
        )


LongRunningEvent = GoalChanged | GoalChecked | SchedulesChanged | ScheduleFired | MonitorDelivered
LONG_RUNNING_EVENT_TYPES: tuple[type[WireModel], ...] = (
    GoalChanged,
    GoalChecked,
    SchedulesChanged,
    ScheduleFired,
    MonitorDelivered,
)
