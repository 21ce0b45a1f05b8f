"""A schedule as data: its session entry, its wire shape, when it is due and what was missed."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal

from pi_cli.shell.events.long_running import ScheduleInfo, ScheduleKind
from pi_cli.shell.schedules._timing import Cron, cron_of, format_interval, format_time, iso

MAX_PROMPT_CHARS = 16_000
"""A longer prompt is refused (it is sent again at every firing)."""
MAX_ACTIVE = 50
"""At most this many schedules per session (Claude Code's limit too)."""
MAX_COUNTED = 10_000
"""Missed firings are counted up to this many."""
Status = Literal["active", "ended", "deleted"]
Creator = Literal["user", "model"]


@dataclass
class Schedule:
    """One loop, cron schedule or one-shot time of the session (see :mod:`pi_cli.shell.schedules`)."""

    id: str
    prompt: str
    kind: ScheduleKind
    created_at: float
    every_s: int | None = None
    cron: str | None = None
    at: float | None = None
    recurring: bool = True
    max_firings: int | None = None
    until: float | None = None
    fired: int = 0
    last_fired_at: float | None = None
    skipped_at: float | None = None
    """Missed firings the user chose not to catch up: the next firing counts from here."""
    status: Status = "active"
    reason: str = ""
    by: Creator = "user"

    @classmethod
    def new(cls, prompt: str, kind: ScheduleKind, now: float, **fields: Any) -> Schedule:
        """A new active schedule (checks its cron expression)."""
        schedule = cls(os.urandom(4).hex(), prompt, kind, now, **fields)
        if schedule.cron is not None:
            Cron.parse(schedule.cron)
        return schedule

    @classmethod
    def from_entry(cls, data: dict[str, Any]) -> Schedule:
        """The schedule a ``schedule`` session entry holds (checked by the entry validator)."""
        return cls(
            id=str(data["scheduleId"]),
            prompt=str(data.get("prompt") or ""),
            kind=data["kind"],
            created_at=float(data["createdAt"]),
            every_s=data.get("everyS"),
            cron=data.get("cron"),
            at=data.get("at"),
            recurring=bool(data.get("recurring", True)),
            max_firings=data.get("maxFirings"),
            until=data.get("until"),
            fired=int(data.get("fired") or 0),
            last_fired_at=data.get("lastFiredAt"),
            skipped_at=data.get("skippedAt"),
            status=data.get("status", "active"),
            reason=str(data.get("reason") or ""),
            by="model" if data.get("by") == "model" else "user",
        )

    def entry(self) -> dict[str, Any]:
        """The fields of its ``schedule`` session entry."""
        return {
            "scheduleId": self.id,
            "prompt": self.prompt,
            "kind": self.kind,
            "createdAt": self.created_at,
            "everyS": self.every_s,
            "cron": self.cron,
            "at": self.at,
            "recurring": self.recurring,
            "maxFirings": self.max_firings,
            "until": self.until,
            "fired": self.fired,
            "lastFiredAt": self.last_fired_at,
            "skippedAt": self.skipped_at,
            "status": self.status,
            "reason": self.reason,
            "by": self.by,
        }

    # ------------------------------------------------------------------ timing

    @property
    def anchor(self) -> float:
        """When it last fired (or was created, or missed firings were skipped): the next
        firing counts from here."""
        fired = self.last_fired_at if self.last_fired_at is not None else self.created_at
        return max(fired, self.skipped_at or fired)

    def _next_raw(self, after: float) -> float | None:
        if self.kind == "interval":
            assert self.every_s is not None
            if after < self.anchor:
                return self.anchor + self.every_s
            return self.anchor + self.every_s * (int((after - self.anchor) // self.every_s) + 1)
        if self.kind == "cron":
            assert self.cron is not None
            return cron_of(self.cron).next_after(after)
        skipped = self.skipped_at is not None and self.at is not None and self.at <= self.skipped_at
        return self.at if self.fired == 0 and not skipped else None

    def next_due(self) -> float | None:
        """When it fires next (``None``: it has no firing left)."""
        if self.status != "active" or self.exhausted():
            return None
        due = self._next_raw(self.anchor)
        if due is None or (self.until is not None and due > self.until):
            return None
        return due

    def exhausted(self) -> bool:
        """Its firings are used up (``--max``, a one-shot or non-recurring schedule that fired)."""
        if self.max_firings is not None and self.fired >= self.max_firings:
            return True
        return not self.recurring and self.fired >= 1

    def missed(self, now: float) -> int:
        """How many firings fell due up to ``now`` and did not happen (counted up to
        :data:`MAX_COUNTED`; bounded by ``--max`` and ``--for``)."""
        count, due = 0, self.next_due()
        left = self.max_firings - self.fired if self.max_firings is not None else MAX_COUNTED
        left = min(left, 1 if not self.recurring else MAX_COUNTED)
        while due is not None and due <= now and count < left:
            count += 1
            if self.until is not None and due > self.until:
                break
            due = self._next_raw(due)
            if due is not None and self.until is not None and due > self.until:
                due = None
        return count

    def end_reason(self) -> str:
        """Why it has no firing left."""
        if self.max_firings is not None and self.fired >= self.max_firings:
            return f"it fired {self.fired} time{'s' if self.fired != 1 else ''} (its --max)"
        if not self.recurring and self.fired:
            return "it fired once"
        if self.until is not None:
            return f"its --for bound ended at {format_time(self.until)}"
        return "its cron expression has no later date"

    # ------------------------------------------------------------------ words

    def describe(self) -> str:
        """``every 5m``, ``cron '0 9 * * 1-5' (UTC)``, ``once at 2026-12-02 14:30 UTC``."""
        if self.kind == "interval":
            assert self.every_s is not None
            return f"every {format_interval(self.every_s)}"
        if self.kind == "cron":
            assert self.cron is not None
            text = cron_of(self.cron).describe()
            return text if self.recurring else f"once, at the next {text}"
        assert self.at is not None
        return f"once at {format_time(self.at)}"

    def bounds(self) -> str:
        """`` (3/10 firings, until 2026-12-02 18:00 UTC)`` or ``""``."""
        parts = []
        if self.max_firings is not None:
            parts.append(f"{self.fired}/{self.max_firings} firings")
        if self.until is not None:
            parts.append(f"until {format_time(self.until)}")
        return f" ({', '.join(parts)})" if parts else ""

    def firing_text(self) -> str:
        """What the model gets at a firing: the prompt, marked with who sent it."""
        return f"[scheduled {self.id}, {self.describe()}] {self.prompt}"

    def title(self, width: int = 40) -> str:
        """The prompt on one line, clipped."""
        text = " ".join(self.prompt.split())
        return text if len(text) <= width else text[: width - 1] + "…"

    def line(self) -> str:
        """One line for ``/loop list`` and notices."""
        due = self.next_due()
        when = f"next {format_time(due)}" if due is not None else "no firing left"
        return (
            f"{self.id}  {self.describe()}{self.bounds()}, fired {self.fired}, {when}: "
            f"{self.title(60)}"
        )

    def info(self) -> ScheduleInfo:
        """Its wire shape."""
        return ScheduleInfo(
            id=self.id,
            prompt=self.prompt,
            kind=self.kind,
            schedule=self.describe(),
            every_s=self.every_s,
            cron=self.cron,
            recurring=self.recurring,
            fired=self.fired,
            max_firings=self.max_firings,
            until=iso(self.until),
            next_fire_at=iso(self.next_due()),
            last_fired_at=iso(self.last_fired_at),
            created_by=self.by,
        )
