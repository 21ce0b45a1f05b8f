"""The MCP thread: its own asyncio loop, where the SDK is imported and every server runs.

Why a thread: importing the SDK takes about a second and connecting servers takes longer; on a
loop of their own neither can delay a front end's first frame or first request, and servers
start the moment the shell is built, before the front end's loop even runs. Work is handed over
with :meth:`McpRuntime.submit` (a ``concurrent.futures.Future``; cancelling it cancels the
request in the MCP loop) and awaited from the shell's loop with :meth:`McpRuntime.call`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


class McpRuntime:
    """A daemon thread running one event loop until :meth:`stop`."""

    def __init__(self) -> None:
        self._ready = threading.Event()
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._main, name="pi-mcp", daemon=True)
        self._thread.start()
        self._ready.wait()

    def _main(self) -> None:
        loop = asyncio.new_event_loop()
        self.loop = loop
        self._ready.set()
        try:
            loop.run_forever()
        finally:
            loop.close()

    def submit(self, factory: Callable[[], Coroutine[Any, Any, T]]) -> concurrent.futures.Future[T]:
        """Run ``factory()`` on the MCP loop."""
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(_call(factory), self.loop)

    async def call(self, factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """Await ``factory()`` run on the MCP loop; cancelling this cancels it there too."""
        future = self.submit(factory)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise

    def stop(self, cleanup: Callable[[], Coroutine[Any, Any, None]], timeout_s: float) -> None:
        """Run ``cleanup`` (closing every server), then end the loop and the thread."""
        loop = self.loop
        if loop is None or not self._thread.is_alive():
            return
        try:
            self.submit(cleanup).result(timeout_s)
        except Exception:  # noqa: BLE001 - a server that will not close is killed below anyway
            pass
        loop.call_soon_threadsafe(loop.stop)
        self._thread.join(timeout_s)


async def _call(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return await factory()
