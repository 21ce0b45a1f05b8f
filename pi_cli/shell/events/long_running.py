"""Shell events of long-running work: goals (``/goal``), loops and schedules, monitors.

Their wire shapes (camelCase, as JSON mode and RPC write them) are documented in
``docs/long-running.md`` ("Events"). ``goal_changed`` carries the whole goal each time (or
``null`` once none is set), so a footer or a client needs no other state.
"""

from __future__ import annotations

from typing import Literal

from agent_core.messages import WireModel

GoalStatus = Literal["pursuing", "paused", "met", "unmet", "budget-limited"]
"""``pursuing``: each run ends with a check and, while it fails, another round; ``paused``: kept
but not pursued (``/goal pause``, Esc, a failed run); ``met`` the check passed; ``unmet`` the
judge found it cannot be reached without the user; ``budget-limited`` a budget ended the
pursuit (``maxTurns``, ``maxCost``, ``goal.maxRounds``)."""


class GoalInfo(WireModel):
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


class GoalChanged(WireModel):
    """The goal was set, checked, paused, resumed, edited, met, ended or dropped (``null``)."""

    type: Literal["goal_changed"] = "goal_changed"
    goal: GoalInfo | None = None


class GoalChecked(WireModel):
    """One verdict on the goal after a round: by the check command or by the judge."""

    type: Literal["goal_checked"] = "goal_checked"
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


LongRunningEvent = GoalChanged | GoalChecked
LONG_RUNNING_EVENT_TYPES: tuple[type[WireModel], ...] = (GoalChanged, GoalChecked)
