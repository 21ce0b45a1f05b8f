"""A cancellation handle shared by the loop, the model stream and running tools."""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class AbortSignal:
    """Set once to abort; awaitable, pollable, and with synchronous callbacks.

    Callbacks let non-async code (a subprocess killer, an HTTP client) react immediately.
    """

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self._callbacks: list[Callable[[], None]] = []
        self.reason: str = ""

    @property
    def aborted(self) -> bool:
        """True once :meth:`abort` was called."""
        return self._event.is_set()

    def abort(self, reason: str = "aborted") -> None:
        """Abort (idempotent); runs the registered callbacks once."""
        if self._event.is_set():
            return
        self.reason = reason
        self._event.set()
        callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            try:
                callback()
            except Exception:  # noqa: BLE001 - a failing canceller must not stop the others
                pass

    def on_abort(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` on abort (at once if already aborted). Returns a remover."""
        if self.aborted:
            callback()
            return lambda: None
        self._callbacks.append(callback)

        def remove() -> None:
            if callback in self._callbacks:
                self._callbacks.remove(callback)

        return remove

    async def wait(self) -> None:
        """Wait until aborted."""
        await self._event.wait()
