"""One attached client's outgoing lines: a bounded queue between the session and its socket.

The session never waits for a client: it puts each line into every client's queue and goes on.
A task per client (:meth:`ClientChannel.pump`) sends them as fast as that client reads. A line
published while nothing is queued is written at once, from the publishing call (the socket
write does not block: the transport buffers it), so a busy event loop (50 model streams) does
not hold it back until the pump's turn. A write that would wait (the socket's buffer is full)
waits before it writes anything (uvicorn's ``send`` waits for ``writable`` first; uvicorn is
pinned): it is abandoned there and the line queued for the pump, with the lines after it. A client
that falls more than :data:`LAG_LIMIT` bytes behind (a reader that never drains, a frozen
laptop on the other end of a tunnel) is dropped: its queue is freed and its connection closed,
and the other clients are not slowed down by it.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any

LAG_LIMIT = 16 * 1024 * 1024
"""Bytes a client may be behind (beyond what it was sent on attaching) before it is dropped."""
_ids = itertools.count(1)


class ClientChannel:
    """The queue of one client.

    Args:
        label: what the client says it is (``tui``, ``plain``, ``web``, ``acp``, ``rpc``...).
        limit: how far behind it may fall (bytes).
    """

    def __init__(self, label: str = "client", limit: int = LAG_LIMIT) -> None:
        self.id = next(_ids)
        self.label = label
        self.limit = limit
        self.connected_at = time.time()
        self.dropped: str | None = None  # why the server dropped it
        self._lines: deque[str] = deque()
        self._size = 0
        self._wake = asyncio.Event()
        self._closed = False
        self.finished = asyncio.Event()
        """Set once closed: the connection's handler stops (a pump stuck on a full socket is
        cancelled)."""
        self._writer: Callable[[str], Coroutine[Any, Any, None]] | None = None  # the pump's send

    @property
    def closed(self) -> bool:
        """No more lines will be sent (the client left or was dropped)."""
        return self._closed

    @property
    def queued_bytes(self) -> int:
        """How far behind the client is."""
        return self._size

    def allow_backlog(self, size: int) -> None:
        """What it is sent on attaching does not count against its lag limit."""
        self.limit += size

    def send(self, text: str) -> None:
        """Queue one line (a client too far behind is dropped instead)."""
        if self._closed:
            return
        if self._writer is not None and not self._lines and self._write_now(self._writer, text):
            return
        self._lines.append(text)
        self._size += len(text)
        if self._size > self.limit:
            self.drop(f"more than {self.limit / (1024 * 1024):.1f} MiB behind")
            return
        self._wake.set()

    def drop(self, reason: str) -> None:
        """Stop sending (the pump ends and the connection is closed)."""
        if self.dropped is None and not self._closed:
            self.dropped = reason
        self.close()

    def close(self) -> None:
        """No more lines: free the queue and end the pump."""
        self._closed = True
        self._lines.clear()
        self._size = 0
        self._wake.set()
        self.finished.set()

    def _write_now(self, send: Callable[[str], Coroutine[Any, Any, None]], text: str) -> bool:
        """Run ``send(text)`` here; False if it would wait (nothing was written: queue it)."""
        coroutine = send(text)
        try:
            coroutine.send(None)
        except StopIteration:
            return True
        except Exception as exc:  # noqa: BLE001 - a broken connection: as when the pump's send raises
            self.drop(f"write failed: {type(exc).__name__}")
            return True
        coroutine.close()  # it waits for the socket to drain, before writing: the pump sends it
        self._writer = None
        return False

    async def pump(self, send: Callable[[str], Coroutine[Any, Any, None]]) -> None:
        """Send queued lines until the channel closes (``send`` raising ends it too)."""
        try:
            while True:
                if not self._lines and not self._closed:
                    self._writer = send  # caught up: the next line is written as it comes
                await self._wake.wait()
                self._wake.clear()
                self._writer = None  # lines are queued: they go first, in order
                while self._lines and not self._closed:
                    text = self._lines.popleft()
                    self._size -= len(text)
                    await send(text)
                if self._closed:
                    return
        finally:
            self._writer = None
