"""A goal as data: its session entry, its wire shape, and the words the model reads."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from pi_cli.shell.events.long_running import GoalInfo, GoalStatus

MAX_CONDITION_CHARS = 4000
"""A condition longer than this is refused (it is repeated to the model every round)."""
ENDED: frozenset[str] = frozenset({"met", "unmet", "budget-limited"})


@dataclass
class Goal:
    """The session's goal (see :mod:`pi_cli.shell.goals`)."""

    id: str
    condition: str
    check: str | None
    status: GoalStatus = "pursuing"
    rounds: int = 0
    reason: str = ""

    @classmethod
    def new(cls, condition: str, check: str | None) -> Goal:
        """A goal being pursued from round 0."""
        return cls(uuid.uuid4().hex[:12], condition, check)

    @classmethod
    def from_entry(cls, data: dict[str, Any] | None) -> Goal | None:
        """The goal a ``goal`` session entry holds (``None``: none, or dropped)."""
        if data is None or data.get("status") == "dropped":
            return None
        return cls(
            id=str(data["goalId"]),
            condition=str(data.get("condition") or ""),
            check=data.get("check") or None,
            status=data["status"],
            rounds=int(data.get("rounds") or 0),
            reason=str(data.get("reason") or ""),
        )

    def entry(self) -> dict[str, Any]:
        """The fields of its ``goal`` session entry."""
        return {
            "goalId": self.id,
            "condition": self.condition,
            "check": self.check,
            "status": self.status,
            "rounds": self.rounds,
            "reason": self.reason,
        }

    def info(self, max_rounds: int, checking: bool = False) -> GoalInfo:
        """Its wire shape."""
        return GoalInfo(
            id=self.id,
            condition=self.condition,
            check=self.check,
            status=self.status,
            rounds=self.rounds,
            max_rounds=max_rounds,
            reason=self.reason,
            checking=checking,
        )

    def how_judged(self) -> str:
        """How the model learns the goal will be decided."""
        if self.check:
            return (
                f"When you stop, pi runs `{self.check}`: the goal is met when it exits with "
                "code 0. While it fails, you get its output and another round."
            )
        return (
            "When you stop, a judge reads this conversation and decides whether the goal holds; "
            "it cannot run anything, so show the evidence (run the tests, print the result) "
            "before you stop."
        )

    def directive(self) -> str:
        """The prompt that starts pursuing it."""
        return f"[goal] Work until this holds: {self.condition}\n\n{self.how_judged()}"

    def continuation(self, max_rounds: int, output: str = "") -> str:
        """The prompt of the next round, after a verdict of not met."""
        shown = f"\n\n```\n{output.rstrip()}\n```" if output.strip() else ""
        return (
            f"[goal] Not met yet after round {self.rounds} of {max_rounds}: {self.reason}"
            f"{shown}\n\nKeep working until this holds: {self.condition}"
        )

    def resumed(self) -> str:
        """The prompt of a round started by ``/goal resume``."""
        return f"[goal] Resume working until this holds: {self.condition}\n\n{self.how_judged()}"

    def line(self, max_rounds: int) -> str:
        """One line for ``/goal`` and notices."""
        check = f" (check: {self.check})" if self.check else " (judged)"
        why = f" — {self.reason}" if self.reason else ""
        return f"Goal {self.status}, round {self.rounds}/{max_rounds}: {self.condition}{check}{why}"
