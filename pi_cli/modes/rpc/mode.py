"""``pi --mode rpc``: pi's RPC protocol. JSON commands on stdin, responses and events on stdout.

Framing is LF only: stdin is read as bytes and split on ``b"\\n"``, so U+2028/U+2029 inside a
JSON string are not line breaks. Each command may carry an ``id``, echoed in its response
``{"type": "response", "command", "success", "data" | "error", "id"}``. Events have pi's shapes
(:mod:`pi_cli.modes.pi_events`: ``message_update`` with the partial message, coalesced).

The commands live in groups (:data:`COMMAND_GROUPS`), one module each: prompting, state,
sessions and the queue. A sub-protocol (e.g. approvals: ``extension_ui_request`` out,
``extension_ui_response`` in) is one more group added to that tuple; its handlers answer
nothing by raising :class:`~pi_cli.modes.rpc.base.Deferred` and write their own lines with
``RpcContext.write``. Long commands (``compact``, ``bash``) run as tasks, so ``abort``,
``abort_bash`` and ``get_state`` are served meanwhile; prompts run in the shell.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, BinaryIO, NoReturn

from pi_cli.args import ExitCode, LaunchArgs
from pi_cli.modes.common import build_shell
from pi_cli.modes.json_writer import write_command_output, write_whole
from pi_cli.modes.pi_events import PiEventWriter
from pi_cli.modes.rpc.base import JSON_NULL, CommandGroup, Deferred, Handler, RpcError
from pi_cli.modes.rpc.checkpoints import checkpoint_commands
from pi_cli.modes.rpc.prompting import prompting_commands
from pi_cli.modes.rpc.queue import queue_commands
from pi_cli.modes.rpc.sessions import session_commands
from pi_cli.modes.rpc.state import state_commands
from pi_cli.modes.rpc.ui import approval_commands
from pi_cli.modes.termination import Termination
from pi_cli.shell import (
    CommandResult,
    CompactionError,
    ConfigError,
    Notice,
    QueueError,
    SessionError,
    ShellEvent,
    dumps_line,
    valid_id,
)

if TYPE_CHECKING:
    from pi_cli.shell import CodingAgent

__all__ = ["COMMAND_GROUPS", "RpcError", "RpcServer", "run_rpc", "serve"]

COMMAND_GROUPS: tuple[CommandGroup, ...] = (
    prompting_commands,
    state_commands,
    session_commands,
    queue_commands,
    approval_commands,
    checkpoint_commands,
)
"""Every command group; a later group may replace a command of an earlier one."""
USER_ERRORS = (RpcError, SessionError, ConfigError, CompactionError, QueueError)


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
    """Command dispatch and output for one shell (the :class:`RpcContext` of the groups)."""

    def __init__(self, shell: CodingAgent, stdout: BinaryIO) -> None:
        self._shell = shell
        self.stdout = stdout
        self.tasks: set[asyncio.Future[Any]] = set()
        self.broken = False
        self.events = PiEventWriter(self.write, shell.thinking)
        self.handlers: dict[str, Handler] = {}
        for group in COMMAND_GROUPS:
            self.handlers.update(group(self))

    @property
    def shell(self) -> CodingAgent:
        """The shell this server drives."""
        return self._shell

    # ------------------------------------------------------------------ output

    def write(self, payload: dict[str, Any]) -> None:
        """Write one JSON line (a closed stdout stops output quietly)."""
        if self.broken:
            return
        try:
            write_whole(self.stdout, dumps_line(payload))  # whole even if stdout is non-blocking
        except (BrokenPipeError, OSError):
            self.broken = True

    def write_event(self, event: ShellEvent) -> None:
        """Shell listener: events in pi's shape."""
        self.events(event)

    def respond(
        self, command: str, request_id: Any, *, data: Any = None, error: str | None = None
    ) -> None:
        """Write one response line (pending message updates first, to keep the order)."""
        self.events.flush()
        payload: dict[str, Any] = {"type": "response", "command": command, "success": error is None}
        if error is not None:
            payload["error"] = error
        elif data is JSON_NULL:
            payload["data"] = None
        elif data is not None:
            payload["data"] = data
        if request_id is not None:
            payload["id"] = request_id
        self.write(payload)

    # ------------------------------------------------------------------ dispatch

    async def handle_line(self, raw: bytes) -> None:
        """Parse and run one command line; malformed input gets an error response."""
        text = raw.rstrip(b"\r\n")
        if not text.strip():
            return
        try:
            command = json.loads(text.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            self.respond("parse", None, error=f"Failed to parse command: Malformed JSON: {exc}")
            return
        except RecursionError:  # "[[[[..." nested past the parser's limit
            self.respond("parse", None, error="Failed to parse command: nested too deeply")
            return
        if not isinstance(command, dict) or not isinstance(command.get("type"), str):
            request_id = command.get("id") if isinstance(command, dict) else None
            self.respond(
                "parse", request_id, error='A command is a JSON object with a string "type"'
            )
            return
        name, request_id = command["type"], command.get("id")
        if not valid_id(request_id):  # an id of Infinity would make the response invalid JSON
            self.respond(name, None, error='A command\'s "id" is a string or a number')
            return
        handler = self.handlers.get(name)
        if handler is None:
            self.respond(name, request_id, error=f"Unknown command: {name}")
            return
        try:
            data = await handler(command)
        except Deferred:
            return  # the handler's task responds when it is done (or nothing answers)
        except USER_ERRORS as exc:
            self.respond(name, request_id, error=str(exc))  # user-facing messages
        except Exception as exc:  # noqa: BLE001 - one bad command must not stop the server
            self.respond(name, request_id, error=f"{type(exc).__name__}: {exc}")
        else:
            self.respond(name, request_id, data=data)

    def spawn(self, command: dict[str, Any], work: Coroutine[Any, Any, Any]) -> NoReturn:
        """Answer ``command`` from a task running ``work``; the caller's dispatch ends here."""
        name, request_id = command["type"], command.get("id")

        async def run() -> None:
            try:
                data = await work
            except USER_ERRORS as exc:
                self.respond(name, request_id, error=str(exc))
            except Exception as exc:  # noqa: BLE001 - reported, the server goes on
                self.respond(name, request_id, error=f"{type(exc).__name__}: {exc}")
            else:
                self.respond(name, request_id, data=data)

        task = asyncio.ensure_future(run())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        raise Deferred

    async def drain(self) -> None:
        """Wait for what is live (stdin closed while the model works)."""
        while self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)
        await self.shell.wait_idle()
        self.events.flush()

    def track(self, future: asyncio.Future[CommandResult | None]) -> None:
        """Report what a submitted input produced (command output, a failure) when it is done."""
        if future.done() and not future.cancelled() and future.exception() is None:
            write_command_output(self.write_event, future.result())
            return
        self.tasks.add(future)
        future.add_done_callback(self._report)

    def _report(self, future: asyncio.Future[CommandResult | None]) -> None:
        self.tasks.discard(future)
        if future.cancelled():
            return
        exc = future.exception()
        if exc is not None:
            text = f"prompt failed: {type(exc).__name__}: {exc}"
            self.write_event(Notice(text=text, level="error"))
            return
        write_command_output(self.write_event, future.result())

    async def settle(self) -> None:
        """Let what is finishing (compaction after a run, a command) end; a live run is not."""
        if self.shell.busy and self.shell.state != "running":
            await self.shell.wait_idle()
