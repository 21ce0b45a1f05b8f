"""The stdio transport for MCP servers over a process started by :mod:`.process`.

Like the SDK's ``stdio_client`` (newline-delimited JSON-RPC over the child's stdin/stdout), over
a server pi started itself, inside its process containment. A line on stdout that is not a
JSON-RPC message is answered with a JSON-RPC error (:mod:`pi_cli.shell.wire.jsonrpc`) and reading
goes on, as the reference SDKs do (a server that prints a banner still works); the line is kept
and quoted when the server then fails or never finishes starting. A malformed response to a
pending request fails that request at once instead of leaving it to time out.

Shutdown: close stdin, wait briefly, then SIGTERM and SIGKILL to the whole tree.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from pi_cli.shell.mcp._process import STDERR_TAIL, StdioProcess
from pi_cli.shell.wire.jsonrpc import INVALID_REQUEST, check_frame, encode, valid_id

LINE_LIMIT = 64 * 1024 * 1024
"""Longest stdout line read (images come base64-encoded in one line)."""


@contextlib.asynccontextmanager
async def stdio_transport(server: StdioProcess) -> AsyncIterator[tuple[Any, Any]]:
    """The SDK transport (read stream, write stream) over a started server process."""
    process = server.process
    assert process.stdin is not None and process.stdout is not None
    reader_send, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_stream, writer_receive = anyio.create_memory_object_stream[SessionMessage](16)

    async with anyio.create_task_group() as group:
        group.start_soon(_read_stdout, server, reader_send)
        group.start_soon(_read_stderr, server)
        group.start_soon(_write_stdin, server, writer_receive)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await stop(server)
            group.cancel_scope.cancel()


async def _read_stdout(
    server: StdioProcess, reader_send: MemoryObjectSendStream[SessionMessage | Exception]
) -> None:
    stdout = server.process.stdout
    assert stdout is not None
    async with reader_send:
        while True:
            try:
                line = await stdout.readline()
            except (ValueError, asyncio.LimitOverrunError):
                server.protocol_error = f"a line on stdout is over {LINE_LIMIT} bytes"
                break
            if not line:
                break
            message = _message(server, line) if line.strip() else None
            if message is None:
                continue
            try:
                await reader_send.send(SessionMessage(message))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return
    # Closing the read stream ends the session: pending requests fail instead of hanging.


async def _read_stderr(server: StdioProcess) -> None:
    stderr = server.process.stderr
    assert stderr is not None
    while chunk := await stderr.read(4096):
        server.stderr.extend(chunk)
        del server.stderr[:-STDERR_TAIL]


async def _write_stdin(
    server: StdioProcess, writer_receive: MemoryObjectReceiveStream[SessionMessage]
) -> None:
    stdin = server.process.stdin
    assert stdin is not None
    async with writer_receive:
        async for message in writer_receive:
            data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
            try:
                stdin.write(data.encode("utf-8") + b"\n")
                await stdin.drain()
            except (BrokenPipeError, ConnectionResetError, RuntimeError):
                return


def _message(server: StdioProcess, line: bytes) -> types.JSONRPCMessage | None:
    """The SDK message on ``line``; ``None`` after answering (or dropping) a bad frame."""
    frame = check_frame(line)
    if frame.message is None:
        if frame.error is not None:
            snippet = line.decode("utf-8", "replace").strip()[:120]
            server.protocol_note = f"it wrote something that is not JSON-RPC: {snippet!r}"
            _answer(server, frame.reply())
        return None
    try:
        return types.jsonrpc_message_adapter.validate_python(frame.message, by_name=False)
    except ValueError:
        pass
    data, request_id = frame.message, frame.message.get("id")
    snippet = line.decode("utf-8", "replace").strip()[:120]
    server.protocol_note = f"it wrote a malformed JSON-RPC message: {snippet!r}"
    if "method" not in data and valid_id(request_id) and request_id is not None:
        # A malformed answer to a request: that request fails now, with the reason.
        failure = types.ErrorData(code=INVALID_REQUEST, message=f"malformed response: {snippet}")
        return types.JSONRPCError(jsonrpc="2.0", id=request_id, error=failure)
    reply_id = request_id if "method" in data and valid_id(request_id) else None
    error = {"code": INVALID_REQUEST, "message": "Invalid Request: malformed message"}
    _answer(server, {"jsonrpc": "2.0", "id": reply_id, "error": error})
    return None


def _answer(server: StdioProcess, message: dict[str, Any]) -> None:
    """Write an error reply to the server (a whole line: ``write`` does not interleave)."""
    stdin = server.process.stdin
    if stdin is None or stdin.is_closing():
        return
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, RuntimeError):
        stdin.write(encode(message))


async def stop(server: StdioProcess, grace_s: float = 0.5) -> None:
    """Close stdin, give the server ``grace_s`` to exit, then SIGTERM, then SIGKILL everything it
    started (read before it is asked to stop: an exited server's children are no longer its)."""
    process = server.process
    tree = server.tree()
    if process.stdin is not None:
        with contextlib.suppress(Exception):
            process.stdin.close()
    for terminate in (False, True):
        if terminate:
            tree.terminate()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), grace_s)
            break
    tree.kill()  # what the server started itself, even after it exited
