"""Two timeouts for a streamed response: before its first byte, and between bytes.

A remote API may think for minutes before its first byte (long first-byte timeout, off for a
local server, where a CPU model can take longer still); once bytes flow, silence means a
stalled connection (the idle timeout, reset by any byte, SSE comments such as ``: ping``
included). httpx's read timeout cannot tell the two apart, so one timer per response watches
both: the hot path only stores the time of the last chunk, and the timer re-arms itself at
most once per idle period while data keeps coming.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from agent_core.providers.errors import ProviderError


@dataclass(frozen=True)
class Timeouts:
    """Seconds; ``None`` = no limit."""

    first_byte_s: float | None = 600.0
    idle_s: float | None = 120.0


class StallWatch:
    """Cancels the reading task when a response stays silent too long; see :meth:`error`."""

    __slots__ = ("timeouts", "last", "got_byte", "expired", "_task", "_handle")

    def __init__(self, timeouts: Timeouts) -> None:
        self.timeouts = timeouts
        self.last = time.monotonic()
        self.got_byte = False
        self.expired: str | None = None  # "first_byte" | "idle" once fired
        self._task: asyncio.Task[object] | None = None
        self._handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """Watch the current task from now (the request is about to be sent)."""
        self._task = asyncio.current_task()
        self.last = time.monotonic()
        self._arm()

    def touch(self) -> None:
        """Bytes arrived (called per network chunk: keep it this cheap)."""
        self.last = time.monotonic()
        self.got_byte = True

    def stop(self) -> None:
        """The response is over (or failed otherwise): no more checks."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def error(self, provider: str) -> ProviderError:
        """The retryable error for an expired watch."""
        if self.expired == "first_byte":
            seconds = self.timeouts.first_byte_s or 0
            return ProviderError(
                f"Request to {provider} timed out: nothing received for {seconds:g}s (first-byte "
                "timeout; raise timeouts.firstByteS in settings to wait longer)",
                retryable=True,
            )
        seconds = self.timeouts.idle_s or 0
        return ProviderError(
            f"Stream from {provider} stalled: no data for {seconds:g}s (idle timeout; "
            "raise timeouts.idleS in settings to wait longer)",
            retryable=True,
        )

    def _deadline(self) -> float | None:
        limit = self.timeouts.idle_s if self.got_byte else self.timeouts.first_byte_s
        return None if not limit else self.last + limit

    def _arm(self) -> None:
        deadline = self._deadline()
        if deadline is None:
            if not self.got_byte and self.timeouts.idle_s:
                # No first-byte limit: look again now and then, for when bytes start to flow.
                self._handle = asyncio.get_running_loop().call_later(1.0, self._check)
            return
        delay = max(deadline - time.monotonic(), 0.0)
        self._handle = asyncio.get_running_loop().call_later(delay, self._check)

    def _check(self) -> None:
        self._handle = None
        deadline = self._deadline()
        if deadline is not None and time.monotonic() >= deadline:
            self.expired = "idle" if self.got_byte else "first_byte"
            if self._task is not None and not self._task.done():
                self._task.cancel()
            return
        self._arm()
