"""stdio for the ACP SDK with every incoming line checked first (:mod:`pi_cli.shell.wire.jsonrpc`).

The SDK's own newline transport hands any decoded JSON to its connection, whose receive loop
ends (and with it ``pi --mode acp``) on a batch, a bare number or a response with an array
``id``. This one answers such a line with a JSON-RPC error and reads on. It is a message-level
transport (the SDK's ``Transport`` protocol: ``send``, ``receive``, ``close``).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from pi_cli.shell import check_frame, encode, say

LINE_LIMIT = 50 * 1024 * 1024
"""Longest line read (the SDK's stdio default); a longer one is answered with an error."""


class CheckedStdio:
    """Newline-delimited JSON-RPC over asyncio streams; bad frames get error replies."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    async def send(self, message: dict[str, Any]) -> None:
        """Write one message as one line (``write`` is synchronous: lines never interleave)."""
        self._writer.write(encode(message))
        await self._writer.drain()

    async def receive(self) -> dict[str, Any] | None:
        """The next well-formed message; ``None`` at the end of input."""
        while True:
            line = await self._line()
            if line is None:
                return None
            if not line.strip():
                continue
            frame = check_frame(line)
            if frame.message is not None:
                return frame.message
            if frame.error is not None:
                say(f"pi acp: rejected a frame: {frame.error['message']}", err=True)
                with contextlib.suppress(ConnectionError):
                    await self.send(frame.reply())

    async def _line(self) -> bytes | None:
        try:
            line = await self._reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            return exc.partial or None
        except asyncio.LimitOverrunError:
            await self._skip_line()
            return b"\x00"  # not JSON: answered as a parse error
        return line

    async def _skip_line(self) -> None:
        while True:
            try:
                await self._reader.readuntil(b"\n")
                return
            except asyncio.LimitOverrunError as exc:
                await self._reader.readexactly(exc.consumed)
            except asyncio.IncompleteReadError:
                return

    async def close(self) -> None:
        """Close the writing side."""
        with contextlib.suppress(Exception):
            self._writer.close()


async def checked_stdio() -> CheckedStdio:
    """The transport over this process's stdin and stdout."""
    from acp.stdio import stdio_streams

    reader, writer = await stdio_streams(limit=LINE_LIMIT)
    return CheckedStdio(reader, writer)
