"""The stdio transport for MCP servers, inside pi's process containment.

Like the SDK's ``stdio_client`` (newline-delimited JSON-RPC over the child's stdin/stdout), but
the server starts in its own process group with ``PR_SET_PDEATHSIG`` set in the child (it gets
SIGKILL if pi dies, even by SIGKILL), with exactly the environment pi gives it (the tools' key-free
environment plus its configured ``env``), and its stderr kept (the last few KiB) for error
messages. A line on stdout that is not JSON-RPC fails the connection with that line quoted: the
spec forbids anything else there, and waiting would only turn it into a time-out.

Shutdown: close stdin, wait briefly, then SIGTERM and SIGKILL to the whole group.
(The sandbox branch builds pi's general process containment in ``tools/processes.py``; this
module is the piece to unify with it.)
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
from collections.abc import AsyncIterator, Mapping
from typing import Any

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage

PR_SET_PDEATHSIG = 1
STDERR_TAIL = 4096
LINE_LIMIT = 64 * 1024 * 1024
"""Longest stdout line read (images come base64-encoded in one line)."""
try:
    _prctl: Any = ctypes.CDLL(None, use_errno=True).prctl  # loaded before fork: no dlopen after
except (OSError, AttributeError):  # not Linux
    _prctl = None


def _contain() -> None:  # runs in the child between fork and exec: no allocation-heavy work
    if _prctl is not None:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class ServerProcessError(Exception):
    """The server broke the transport (exited, wrote something that is not JSON-RPC)."""


class StdioProcess:
    """A started server process and what it said on stderr."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.stderr = bytearray()
        self.protocol_error: str | None = None

    @property
    def pid(self) -> int:
        """The server's pid (also its process group id)."""
        return self.process.pid

    def stderr_tail(self, limit: int = 600) -> str:
        """The end of what the server wrote to stderr, as one trimmed text."""
        text = self.stderr.decode("utf-8", "replace").strip()
        return text if len(text) <= limit else "…" + text[-limit:]

    def exit_text(self) -> str:
        """How the process ended (or ``running``)."""
        code = self.process.returncode
        if code is None:
            return "running"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with code {code}"

    def kill_group(self, sig: int = signal.SIGKILL) -> None:
        """Signal the server's whole process group (never raises)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)


async def spawn(
    command: str, args: list[str], env: Mapping[str, str], cwd: str | None
) -> StdioProcess:
    """Start the server (raises OSError when the command cannot be run)."""
    process = await asyncio.create_subprocess_exec(
        command,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(env),
        cwd=cwd,
        start_new_session=True,
        preexec_fn=_contain,
        limit=LINE_LIMIT,
    )
    return StdioProcess(process)


@contextlib.asynccontextmanager
async def stdio_transport(server: StdioProcess) -> AsyncIterator[tuple[Any, Any]]:
    """The SDK transport (read stream, write stream) over a started server process."""
    process = server.process
    assert process.stdin is not None and process.stdout is not None
    reader_send, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](16)
    write_stream, writer_receive = anyio.create_memory_object_stream[SessionMessage](16)

    async def read_stdout() -> None:
        assert process.stdout is not None
        async with reader_send:
            while True:
                try:
                    line = await process.stdout.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    server.protocol_error = f"a line on stdout is over {LINE_LIMIT} bytes"
                    break
                if not line:
                    break
                if not line.strip():
                    continue
                try:
                    message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except ValueError:
                    snippet = line.decode("utf-8", "replace").strip()[:120]
                    server.protocol_error = f"it wrote something that is not JSON-RPC: {snippet!r}"
                    break
                try:
                    await reader_send.send(SessionMessage(message))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    return
        # Closing the read stream ends the session: pending requests fail instead of hanging.

    async def read_stderr() -> None:
        assert process.stderr is not None
        while chunk := await process.stderr.read(4096):
            server.stderr.extend(chunk)
            del server.stderr[:-STDERR_TAIL]

    async def write_stdin() -> None:
        assert process.stdin is not None
        async with writer_receive:
            async for message in writer_receive:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                try:
                    process.stdin.write(data.encode("utf-8") + b"\n")
                    await process.stdin.drain()
                except (BrokenPipeError, ConnectionResetError, RuntimeError):
                    return

    async with anyio.create_task_group() as group:
        group.start_soon(read_stdout)
        group.start_soon(read_stderr)
        group.start_soon(write_stdin)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await stop(server)
            group.cancel_scope.cancel()


async def stop(server: StdioProcess, grace_s: float = 0.5) -> None:
    """Close stdin, give the server ``grace_s`` to exit, then end its whole group."""
    process = server.process
    if process.stdin is not None:
        with contextlib.suppress(Exception):
            process.stdin.close()
    for sig in (None, signal.SIGTERM, signal.SIGKILL):
        if sig is not None:
            server.kill_group(sig)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), grace_s)
            break
    server.kill_group(signal.SIGKILL)  # what the server started itself, even after it exited
