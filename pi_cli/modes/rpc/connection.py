"""One RPC client's commands: parse, validate against the command's model, dispatch, respond.

Transport-free: stdio RPC mode gives it stdout, ``pi serve`` one per attached client (each
gets its own responses; events go to every client through the shell's
:class:`~pi_cli.modes.rpc.output.RpcOutput`). The commands live in groups
(:data:`COMMAND_GROUPS`), one module each; every command has a model in
:mod:`pi_cli.modes.rpc.schema`, checked before its handler runs.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, NoReturn

from pi_cli.modes.json_writer import write_command_output
from pi_cli.modes.rpc.agents import agent_commands
from pi_cli.modes.rpc.base import JSON_NULL, CommandGroup, Deferred, Handler, RpcError
from pi_cli.modes.rpc.checkpoints import checkpoint_commands
from pi_cli.modes.rpc.front import front_commands
from pi_cli.modes.rpc.prompting import prompting_commands
from pi_cli.modes.rpc.queue import queue_commands
from pi_cli.modes.rpc.schedules import schedule_commands
from pi_cli.modes.rpc.schema import check_command
from pi_cli.modes.rpc.sessions import session_commands
from pi_cli.modes.rpc.state import state_commands
from pi_cli.modes.rpc.ui import approval_commands
from pi_cli.shell import (
    CommandResult,
    CompactionError,
    ConfigError,
    Notice,
    QueueError,
    SessionError,
    ShellEvent,
    valid_id,
)

if TYPE_CHECKING:
    from pi_cli.modes.rpc.output import RpcOutput
    from pi_cli.modes.rpc.ui import RpcApprovals
    from pi_cli.shell import CodingAgent

COMMAND_GROUPS: tuple[CommandGroup, ...] = (
    prompting_commands,
    state_commands,
    session_commands,
    queue_commands,
    approval_commands,
    checkpoint_commands,
    front_commands,
    agent_commands,
    schedule_commands,
)
"""Every command group; a later group may replace a command of an earlier one."""
USER_ERRORS = (RpcError, SessionError, ConfigError, CompactionError, QueueError)
MAX_DEPTH_MESSAGE = "Failed to parse command: nested too deeply"


class RpcConnection:
    """Command dispatch and responses for one client (the :class:`RpcContext` of the groups).

    Args:
        shell: the shell the commands drive.
        write: writes one line to this client.
        output: the shell's event output (command output is an event every client sees; the
            approvals it asks are answered here).
    """

    def __init__(
        self, shell: CodingAgent, write: Callable[[dict[str, Any]], None], output: RpcOutput
    ) -> None:
        self._shell = shell
        self.write = write
        self.output = output
        self.tasks: set[asyncio.Future[Any]] = set()
        self.handlers: dict[str, Handler] = {}
        for group in COMMAND_GROUPS:
            self.handlers.update(group(self))

    @property
    def shell(self) -> CodingAgent:
        """The shell this connection drives."""
        return self._shell

    @property
    def approvals(self) -> RpcApprovals:
        """The shell's approval requests (answers are routed through them)."""
        return self.output.approvals

    def publish(self, event: ShellEvent) -> None:
        """An event of this client's doing that every client sees (a command's output)."""
        self.output(event)

    def respond(
        self, command: str, request_id: Any, *, data: Any = None, error: str | None = None
    ) -> None:
        """Write one response line (pending message updates first, to keep the order)."""
        self.output.flush()
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

    async def handle_line(self, raw: bytes | str) -> None:
        """Parse and run one command line; malformed input gets an error response."""
        text = raw.rstrip(b"\r\n") if isinstance(raw, bytes) else raw.rstrip("\r\n")
        if not text.strip():
            return
        try:
            command = json.loads(text.decode("utf-8") if isinstance(text, bytes) else text)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            self.respond("parse", None, error=f"Failed to parse command: Malformed JSON: {exc}")
            return
        except RecursionError:  # "[[[[..." nested past the parser's limit
            self.respond("parse", None, error=MAX_DEPTH_MESSAGE)
            return
        await self.handle_command(command)

    async def handle_command(self, command: Any) -> None:
        """Run one parsed command (anything JSON gave: a non-object is answered as such)."""
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
        problem = check_command(command)
        if problem is not None:
            self.respond(name, request_id, error=problem)
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
        """Wait for what is live (the client left while the model works)."""
        while self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)
        await self.shell.wait_idle()
        self.output.flush()

    def track(self, future: asyncio.Future[CommandResult | None]) -> None:
        """Report what a submitted input produced (command output, a failure) when it is done."""
        if future.done() and not future.cancelled() and future.exception() is None:
            write_command_output(self.publish, future.result())
            return
        self.tasks.add(future)
        future.add_done_callback(self._report)

    def _report(self, future: asyncio.Future[CommandResult | None]) -> None:
        self.tasks.discard(future)
        if future.cancelled():
            return
        exc = future.exception()
        if exc is not None:
            self.publish(Notice(text=f"prompt failed: {type(exc).__name__}: {exc}", level="error"))
            return
        write_command_output(self.publish, future.result())

    async def settle(self) -> None:
        """Let what is finishing (compaction after a run, a command) end; a live run is not."""
        if self.shell.busy and self.shell.state != "running":
            await self.shell.wait_idle()
