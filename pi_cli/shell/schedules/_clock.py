"""The schedules' clock: wall-clock time and one-off timers (tests inject a manual clock)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    """A pending call (``asyncio.TimerHandle``)."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """Wall-clock time and one-off timers (tests inject a manual clock)."""

    def now(self) -> float: ...
    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer: ...


class LoopClock:
    """``time.time`` and the running event loop's ``call_later``."""

    def now(self) -> float:
        return time.time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(delay, callback)
