"""A clock tests move by hand: schedules' timers fire when the test advances it, not by sleeping."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class _Timer:
    due: float
    callback: Callable[[], None]
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True


@dataclass
class ManualClock:
    """``now()`` and ``call_later`` (the :class:`pi_cli.shell.schedules.Clock` protocol)."""

    t: float = 1_796_000_000.0  # 2026-11-30 00:53:20 UTC
    timers: list[_Timer] = field(default_factory=list)

    def now(self) -> float:
        return self.t

    def call_later(self, delay: float, callback: Callable[[], None]) -> _Timer:
        assert delay >= 0
        timer = _Timer(self.t + delay, callback)
        self.timers.append(timer)
        return timer

    @property
    def pending(self) -> list[_Timer]:
        """Timers not fired nor cancelled."""
        return [t for t in self.timers if not t.cancelled]

    def advance(self, seconds: float) -> int:
        """Move time on and run the timers that fell due, in order; how many ran."""
        self.t += seconds
        ran = 0
        while True:
            due = sorted((t for t in self.pending if t.due <= self.t), key=lambda t: t.due)
            if not due:
                return ran
            due[0].cancelled = True
            due[0].callback()
            ran += 1
