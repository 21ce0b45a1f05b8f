"""Server-sent events over httpx streaming, and an abortable pump around any async source.

The pump runs the source (HTTP request + SSE reading) in its own task and hands items over a
queue, so an abort cancels that task at once (closing the HTTP stream) whatever the consumer
is doing, without cancelling the consumer's own task.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from agent_core.abort import AbortSignal
from agent_core.providers.errors import Aborted


@dataclass
class SseEvent:
    """One dispatched server-sent event."""

    event: str
    data: str


MAX_LINE_BYTES = 64 * 1024 * 1024
"""A line longer than this (no line break in 64 MiB) is a broken or hostile server."""


class SseLineTooLong(Exception):  # named for what happened
    """The server sent more than :data:`MAX_LINE_BYTES` without a line break."""


async def iter_sse_lines(
    chunks: AsyncIterator[bytes], on_chunk: Callable[[], None] | None = None
) -> AsyncIterator[str]:
    """Split a byte stream into lines on CR, LF or CRLF only, as the SSE spec says.

    httpx's ``aiter_lines`` follows ``str.splitlines`` and also breaks on U+2028, U+2029 and
    U+0085, which are legal unescaped inside a JSON string: a valid stream would be cut apart.
    Splitting the bytes on ASCII CR/LF never cuts a multi-byte UTF-8 character.
    ``on_chunk`` is called for every network chunk (the stall watch: any byte counts).
    """
    pending = b""
    skip_lf = False  # the last chunk ended with CR: an LF opening the next one belongs to it
    async for chunk in chunks:
        if on_chunk is not None:
            on_chunk()
        if skip_lf and chunk.startswith(b"\n"):
            chunk, skip_lf = chunk[1:], False  # that CRLF is whole: a next LF is a line again
        if not chunk:
            continue
        data = pending + chunk if pending else chunk
        skip_lf = data.endswith(b"\r")
        if b"\r" in data:
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        *lines, pending = data.split(b"\n")
        for line in lines:
            yield line.decode("utf-8", "replace")
        if len(pending) > MAX_LINE_BYTES:
            raise SseLineTooLong(f"no line break in {len(pending)} bytes")
    if pending:
        yield pending.decode("utf-8", "replace")


async def iter_sse(lines: AsyncIterator[str]) -> AsyncIterator[SseEvent]:
    """Parse SSE lines (``event:``/``data:`` fields, blank line dispatches, ``:`` comments)."""
    event = ""
    data: list[str] = []
    async for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield SseEvent(event or "message", "\n".join(data))
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        name, sep, value = line.partition(":")
        if not sep:
            # A bare field name; per the SSE spec it has an empty value. Keep it as data so a
            # garbled line reaches the JSON parser and becomes a clear error, not silence.
            name, value = "data", line
        elif value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
    if data:
        yield SseEvent(event or "message", "\n".join(data))


_END = object()


async def pump(
    source: Callable[[Callable[[Any], None]], Any],
    cancel: AbortSignal,
) -> AsyncIterator[Any]:
    """Run ``source(put)`` in a task and yield what it puts; raise :class:`Aborted` on abort.

    ``source`` is an async function receiving ``put``. Exceptions it raises are re-raised here.
    """
    queue: asyncio.Queue[Any] = asyncio.Queue()
    if cancel.aborted:
        raise Aborted

    async def run() -> None:
        try:
            await source(queue.put_nowait)
            queue.put_nowait(_END)
        except asyncio.CancelledError:
            queue.put_nowait(Aborted())
            raise
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer
            queue.put_nowait(exc)

    task = asyncio.ensure_future(run())

    def on_abort() -> None:
        task.cancel()
        queue.put_nowait(Aborted())

    remove = cancel.on_abort(on_abort)
    try:
        while True:
            item = await queue.get()
            if item is _END:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        remove()
        if not task.done():
            task.cancel()
        with contextlib.suppress(BaseException):
            await task
