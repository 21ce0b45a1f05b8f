"""A cancellation handle shared by the loop, the model stream and running tools."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


class Aborted(Exception):
    """The work was cancelled because its :class:`AbortSignal` fired."""


class AbortSignal:
    """Set once to abort; awaitable, pollable, and with synchronous callbacks.

    Callbacks let non-async code (a subprocess killer, an HTTP client) react immediately.
    """

    def __init__(self) -> None:
        self._event = asyncio.Event()
        self._callbacks: list[Callable[[], object]] = []
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

    def on_abort(self, callback: Callable[[], object]) -> Callable[[], None]:
        """Call ``callback`` on abort (at once if already aborted). Returns a remover.

        Its return value is ignored, so ``task.cancel`` can be passed as it is.
        """
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


async def run_abortable(awaitable: Awaitable[T], signal: AbortSignal) -> T:
    """Await ``awaitable`` in its own task, cancelling that task at once when ``signal`` fires.

    A separate task means an abort takes effect whatever the work is blocked on (a model
    stream, a tool's subprocess, a slow hook) without cancelling the caller's own task.

    Raises:
        Aborted: the signal fired (before or while the work ran) and the work was cancelled.
        asyncio.CancelledError: the caller itself was cancelled (not an abort); propagated.
    """
    task = asyncio.ensure_future(awaitable)
    remove = signal.on_abort(task.cancel)
    try:
        return await task
    except asyncio.CancelledError:
        if not signal.aborted:
            raise
        raise Aborted(signal.reason) from None
    finally:
        remove()
