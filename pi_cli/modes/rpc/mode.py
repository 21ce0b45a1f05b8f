"""``pi --mode rpc``: pi's RPC protocol. JSON commands on stdin, responses and events on stdout.

Framing is LF only: stdin is read as bytes and split on ``b"\\n"``, so U+2028/U+2029 inside a
JSON string are not line breaks. Each command may carry an ``id``, echoed in its response
``{"type": "response", "command", "success", "data" | "error", "id"}``. Events have pi's shapes
(:mod:`pi_cli.modes.pi_events`: ``message_update`` with the partial message, coalesced).

The commands and their dispatch are shared with ``pi serve``
(:class:`~pi_cli.modes.rpc.connection.RpcConnection`, one per client, and
:class:`~pi_cli.modes.rpc.output.RpcOutput`, the shell's event lines); this module only puts
them on stdin and stdout. Long commands (``compact``, ``bash``) run as tasks, so ``abort``,
``abort_bash`` and ``get_state`` are served meanwhile; prompts run in the shell.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import TYPE_CHECKING, Any, BinaryIO

from pi_cli.args import ExitCode, LaunchArgs
from pi_cli.modes.common import build_shell
from pi_cli.modes.json_writer import write_whole
from pi_cli.modes.rpc.base import RpcError
from pi_cli.modes.rpc.connection import COMMAND_GROUPS, RpcConnection
from pi_cli.modes.rpc.output import RpcOutput
from pi_cli.modes.termination import Termination
from pi_cli.shell import ShellEvent, dumps_line

if TYPE_CHECKING:
    from pi_cli.shell import CodingAgent

__all__ = ["COMMAND_GROUPS", "RpcError", "RpcServer", "run_rpc", "serve"]


def run_rpc(args: LaunchArgs) -> int:
    """Build the shell and serve stdin/stdout until stdin closes."""
    args.shell.approvals = "remote"  # extension_ui_request / extension_ui_response (rpc_ui.py)
    shell = build_shell(args)
    if isinstance(shell, int):
        return shell
    return asyncio.run(_serve_and_close(shell))


async def _serve_and_close(shell: CodingAgent) -> int:
    try:
        return await serve(shell, sys.stdin.buffer, sys.stdout.buffer)
    finally:
        await shell.aclose()


async def serve(shell: CodingAgent, stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Serve commands from ``stdin`` until EOF, then wait for a live run to finish."""
    server = RpcServer(shell, stdout)
    shell.subscribe(server.write_event)
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[bytes | None] = asyncio.Queue()

    def reader() -> None:
        # A thread: works for pipes, files and ttys alike (asyncio pipes reject regular files).
        try:
            for raw in iter(stdin.readline, b""):
                loop.call_soon_threadsafe(lines.put_nowait, raw)
        finally:
            loop.call_soon_threadsafe(lines.put_nowait, None)

    threading.Thread(target=reader, name="pi-rpc-stdin", daemon=True).start()
    # SIGTERM/SIGHUP: abort the run, stop reading commands, shut down, exit 143/129.
    termination = Termination(shell.abort, lambda: lines.put_nowait(None)).install()
    while (raw := await lines.get()) is not None:
        await server.handle_line(raw)
    await server.drain()
    return termination.exit_code(ExitCode.OK)


class RpcServer:
    """RPC on one byte stream: the shell's output and one client's commands share ``stdout``.

    Subscribe :meth:`write_event` to the shell to send its events.
    """

    def __init__(self, shell: CodingAgent, stdout: BinaryIO) -> None:
        self.shell = shell
        self.stdout = stdout
        self.broken = False
        self.output = RpcOutput(shell, self.write)
        self.connection = RpcConnection(shell, self.write, self.output)

    def write(self, payload: dict[str, Any]) -> None:
        """Write one JSON line (a closed stdout stops output quietly)."""
        if self.broken:
            return
        try:
            write_whole(self.stdout, dumps_line(payload))  # whole even if stdout is non-blocking
        except (BrokenPipeError, OSError):
            self.broken = True

    def write_event(self, event: ShellEvent) -> None:
        """Shell listener: events in pi's shape, approval requests."""
        self.output(event)

    def respond(
        self, command: str, request_id: Any, *, data: Any = None, error: str | None = None
    ) -> None:
        """Write one response line."""
        self.connection.respond(command, request_id, data=data, error=error)

    async def handle_line(self, raw: bytes) -> None:
        """Parse and run one command line."""
        await self.connection.handle_line(raw)

    async def drain(self) -> None:
        """Wait for what is live (stdin closed while the model works)."""
        await self.connection.drain()
