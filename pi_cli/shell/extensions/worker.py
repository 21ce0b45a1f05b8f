"""Each extension's code runs on a thread of its own, with an event loop of its own.

So nothing an extension does can freeze pi: a handler that loops or sleeps (even ``time.sleep``
inside an ``async def``) holds up only its own thread, and pi stops waiting for it after the
timeout (:meth:`Worker.run` returns a future pi waits on with a deadline). The thread is a
daemon: one stuck for ever does not keep pi from exiting. Sync functions run on the worker's
thread directly; coroutines run as tasks on its loop, so several calls of one extension (a long
tool and a hook) can be in flight together.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import inspect
import threading
from collections.abc import Callable
from typing import Any

from pi_cli.shell.extensions.output import release_thread

WORKERS: dict[int, str] = {}
"""Thread id -> extension name, for every worker thread alive (output capture reads it)."""


class Worker:
    """One extension's thread and loop (started on first use).

    Args:
        name: the extension's name.
        started: told the thread's id once it runs (output capture, :mod:`.output`).
    """

    def __init__(self, name: str, started: Callable[[int], None] | None = None) -> None:
        self.name = name
        self.started = started
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._lock = threading.Lock()

    @property
    def thread_id(self) -> int | None:
        """The worker thread's id, once started."""
        return self._thread.ident if self._thread is not None else None

    def _start(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                self._thread = threading.Thread(
                    target=self._main, name=f"pi-extension-{self.name}", daemon=True
                )
                self._thread.start()
                self._ready.wait()
            assert self._loop is not None
            return self._loop

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        WORKERS[threading.get_ident()] = self.name
        if self.started is not None:
            self.started(threading.get_ident())
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            WORKERS.pop(threading.get_ident(), None)
            release_thread(threading.get_ident())

    def run(
        self,
        function: Callable[..., Any],
        *args: Any,
        values: tuple[tuple[contextvars.ContextVar[Any], Any], ...] = (),
    ) -> concurrent.futures.Future[Any]:
        """Call ``function(*args)`` on the worker (awaited there if it returns a coroutine).

        ``values`` are context variables set for the call (the call's deadline, for dialogs).
        Cancelling the future cancels a coroutine still running; a sync function cannot be
        stopped (its thread is left behind, and the caller disables the extension).
        """
        loop = self._start()

        async def call() -> Any:
            for variable, value in values:
                variable.set(value)  # this task's own context
            result = function(*args)
            if inspect.isawaitable(result):
                result = await result
            return result

        return asyncio.run_coroutine_threadsafe(call(), loop)

    def stop(self) -> None:
        """Stop the loop (a thread stuck in a sync call stays, as a daemon, until pi exits)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(loop.stop)


def on_worker() -> str | None:
    """The name of the extension whose worker thread this is (``None`` elsewhere)."""
    return WORKERS.get(threading.get_ident())
