"""One attached client's outgoing lines: a bounded queue between the session and its socket.

The session never waits for a client: it puts each line into every client's queue and goes on.
A task per client (:meth:`ClientChannel.pump`) sends them as fast as that client reads. A client
that falls more than :data:`LAG_LIMIT` bytes behind (a reader that never drains, a frozen
laptop on the other end of a tunnel) is dropped: its queue is freed and its connection closed,
and the other clients are not slowed down by it.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Awaitable, Callable

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

    async def pump(self, send: Callable[[str], Awaitable[None]]) -> None:
        """Send queued lines until the channel closes (``send`` raising ends it too)."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            while self._lines and not self._closed:
                text = self._lines.popleft()
                self._size -= len(text)
                await send(text)
            if self._closed:
                return
