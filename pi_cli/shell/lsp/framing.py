"""LSP's base protocol: ``Content-Length`` framed JSON-RPC messages over a byte stream.

Written by hand rather than taken from ``pygls``/``lsprotocol`` (measured, see
``docs/lsp.md``): importing ``lsprotocol.types`` alone costs ~230 ms (pygls' client ~290 ms),
paid on the shell's loop when the first server starts, and structuring a
``publishDiagnostics`` into its attrs classes is 4x slower than reading the JSON (1.6 ms
against 0.4 ms for 200 diagnostics), which a server flooding diagnostics turns into a stalled
UI. pi reads a dozen fields of a handful of messages; plain JSON with typed accessors
(:mod:`.protocol`) is all it needs.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

MAX_MESSAGE = 64 * 1024 * 1024
"""Largest message body read (a huge workspace-symbol answer fits; a runaway server does not)."""
MAX_HEADER = 8 * 1024
"""Longest header line (a real one is ~30 bytes)."""


class FramingError(Exception):
    """The server broke the base protocol (the message quotes what it sent)."""


def encode(message: dict[str, Any]) -> bytes:
    """One message as header and UTF-8 JSON body."""
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


async def read_message(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message; ``None`` at a clean end of stream (between messages).

    Raises:
        FramingError: a malformed header, a body that is not a JSON object, or a stream that
            ends inside a message.
    """
    length = await _read_header(reader)
    if length is None:
        return None
    try:
        body = await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        raise FramingError("the stream ended inside a message body") from None
    try:
        message = json.loads(body)
    except (UnicodeDecodeError, ValueError):
        raise FramingError(f"a message body that is not JSON: {_quote(body)}") from None
    if not isinstance(message, dict):
        raise FramingError(f"a message that is not a JSON object: {_quote(body)}")
    return message


async def _read_header(reader: asyncio.StreamReader) -> int | None:
    """The header's Content-Length; ``None`` at a clean end of stream."""
    length: int | None = None
    first = True
    while True:
        try:
            line = await reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:
            if first and not exc.partial:
                return None
            raise FramingError("the stream ended inside a message header") from None
        except asyncio.LimitOverrunError:
            raise FramingError(f"a header line is longer than {MAX_HEADER} bytes") from None
        first = False
        text = line.rstrip(b"\r\n")
        if not text:
            if length is None:
                continue  # tolerate stray blank lines between messages
            return length
        name, sep, value = text.partition(b":")
        if not sep:
            raise FramingError(f"not an LSP header: {_quote(text)}")
        if name.strip().lower() == b"content-length":
            length = _content_length(value)


def _content_length(value: bytes) -> int:
    try:
        length = int(value.strip())
    except ValueError:
        raise FramingError(f"bad Content-Length: {_quote(value)}") from None
    if not 0 <= length <= MAX_MESSAGE:
        raise FramingError(f"a message of {length} bytes (over {MAX_MESSAGE})")
    return length


def _quote(raw: bytes, limit: int = 120) -> str:
    text = raw[:limit].decode("utf-8", "replace")
    return repr(text + ("…" if len(raw) > limit else ""))
