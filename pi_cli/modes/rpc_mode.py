"""``pi --mode rpc``: JSON commands on stdin, responses and events as JSON lines on stdout.

Framing is LF only: stdin is read as bytes and split on ``b"\\n"``, so U+2028/U+2029 inside a
JSON string are not line breaks. Each command may carry an ``id``, echoed in its response
``{"type": "response", "command", "success", "data" | "error", "id"}``. Events have the JSON
mode's shape (:func:`pi_cli.modes.json_writer.event_line`). Prompts run as background tasks, so
``steer``, ``follow_up`` and ``abort`` are served while a run is live; what a prompt sent while
pi is busy becomes is the shell's decision (``streamingBehavior`` ``steer`` or ``followUp``).

The queue is data: ``get_queue`` lists it (``{id, text, kind}``, kind ``steer``, ``follow_up`` or
``held``), ``edit_queued`` / ``remove_queued`` / ``move_queued`` / ``promote_queued`` change one
item by ``itemId``, ``take_queued`` empties it; each change is also a ``queue_changed`` event.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, BinaryIO

from agent_core import AssistantMessage, to_wire
from pi_cli.args import ExitCode, LaunchArgs
from pi_cli.modes.common import build_shell
from pi_cli.modes.json_writer import event_line, is_written, write_command_output
from pi_cli.modes.rpc_views import queue_of, session_stats, state_of
from pi_cli.shell.compaction import CompactionError
from pi_cli.shell.events import Notice, ShellEvent
from pi_cli.shell.input_queue import QueueError
from pi_cli.shell.jsonl import dumps_line
from pi_cli.shell.model_setup import ConfigError
from pi_cli.shell.session_store import SessionError
from pi_cli.shell.slash_commands import CommandResult

if TYPE_CHECKING:
    from pi_cli.shell.coding_agent import CodingAgent

Handler = Callable[[dict[str, Any]], Awaitable[Any]]


class RpcError(Exception):
    """A command failed; the message goes into the error response."""


class _Deferred(Exception):  # noqa: N818 - control flow, not an error
    """Raised by a handler whose task writes the response later."""


def run_rpc(args: LaunchArgs) -> int:
    """Build the shell and serve stdin/stdout until stdin closes."""
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
    while (raw := await lines.get()) is not None:
        await server.handle_line(raw)
    await server.drain()
    return ExitCode.OK


class RpcServer:
    """Command dispatch and output for one shell."""

    def __init__(self, shell: CodingAgent, stdout: BinaryIO) -> None:
        self.shell = shell
        self.stdout = stdout
        self.tasks: set[asyncio.Future[CommandResult | None]] = set()
        self.broken = False
        self.handlers: dict[str, Handler] = {
            "prompt": self._prompt,
            "steer": self._steer,
            "follow_up": self._follow_up,
            "abort": self._abort,
            "get_state": self._get_state,
            "get_messages": self._get_messages,
            "set_model": self._set_model,
            "get_available_models": self._get_available_models,
            "compact": self._compact,
            "new_session": self._new_session,
            "switch_session": self._switch_session,
            "fork": self._fork,
            "get_last_assistant_text": self._get_last_assistant_text,
            "get_session_stats": self._get_session_stats,
            "get_queue": self._get_queue,
            "edit_queued": self._edit_queued,
            "remove_queued": self._remove_queued,
            "move_queued": self._move_queued,
            "promote_queued": self._promote_queued,
            "take_queued": self._take_queued,
        }

    # ------------------------------------------------------------------ output

    def _write(self, line: bytes) -> None:
        if self.broken:
            return
        try:
            self.stdout.write(line)
            self.stdout.flush()
        except (BrokenPipeError, OSError):
            self.broken = True

    def write_event(self, event: ShellEvent) -> None:
        """Shell listener: one event per line."""
        if is_written(event):
            self._write(event_line(event))

    def respond(
        self, command: str, request_id: Any, *, data: Any = None, error: str | None = None
    ) -> None:
        """Write one response line."""
        payload: dict[str, Any] = {"type": "response", "command": command, "success": error is None}
        if error is not None:
            payload["error"] = error
        elif data is not None:
            payload["data"] = data
        if request_id is not None:
            payload["id"] = request_id
        self._write(dumps_line(payload))

    # ------------------------------------------------------------------ dispatch

    async def handle_line(self, raw: bytes) -> None:
        """Parse and run one command line; malformed input gets an error response."""
        text = raw.rstrip(b"\r\n")
        if not text.strip():
            return
        try:
            command = json.loads(text.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            self.respond("parse", None, error=f"Malformed command: {exc}")
            return
        except RecursionError:  # "[[[[..." nested past the parser's limit
            self.respond("parse", None, error="Malformed command: nested too deeply")
            return
        if not isinstance(command, dict) or not isinstance(command.get("type"), str):
            request_id = command.get("id") if isinstance(command, dict) else None
            self.respond(
                "parse", request_id, error='A command is a JSON object with a string "type"'
            )
            return
        name, request_id = command["type"], command.get("id")
        handler = self.handlers.get(name)
        if handler is None:
            self.respond(name, request_id, error=f"Unknown command: {name}")
            return
        try:
            data = await handler(command)
        except _Deferred:
            return  # the handler's task responds when it is done
        except (RpcError, SessionError, ConfigError, CompactionError, QueueError) as exc:
            self.respond(name, request_id, error=str(exc))  # user-facing messages
        except Exception as exc:  # noqa: BLE001 - one bad command must not stop the server
            self.respond(name, request_id, error=f"{type(exc).__name__}: {exc}")
        else:
            self.respond(name, request_id, data=data)

    async def drain(self) -> None:
        """Wait for what is live (stdin closed while the model works)."""
        while self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)
        await self.shell.wait_idle()

    @staticmethod
    def _text(command: dict[str, Any], key: str = "message") -> str:
        message = command.get(key)
        if not isinstance(message, str):
            raise RpcError(f'"{key}" (a string) is required')
        # A lone surrogate ("\ud800") is valid JSON but no text: replace it rather than fail later.
        return message.encode("utf-8", "replace").decode("utf-8")

    def _track(self, future: asyncio.Future[CommandResult | None]) -> None:
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

    async def _settle(self) -> None:
        """Let what is finishing (compaction after a run, a command) end; a live run is not."""
        if self.shell.busy and self.shell.state != "running":
            await self.shell.wait_idle()

    # ------------------------------------------------------------------ commands

    async def _prompt(self, command: dict[str, Any]) -> Any:
        message = self._text(command)
        intent: Any = "auto"
        if self.shell.state == "running":  # otherwise a busy shell holds it for afterwards
            behaviour = command.get("streamingBehavior")
            if behaviour not in ("steer", "followUp"):
                raise RpcError(
                    'The agent is running: set "streamingBehavior" to "steer" or "followUp"'
                )
            intent = "steer" if behaviour == "steer" else "follow_up"
        self._track(self.shell.submit(message, intent))
        return None

    async def _steer(self, command: dict[str, Any]) -> Any:
        self._track(self.shell.submit(self._text(command), "steer"))

    async def _follow_up(self, command: dict[str, Any]) -> Any:
        self._track(self.shell.submit(self._text(command), "follow_up"))

    async def _abort(self, command: dict[str, Any]) -> Any:
        self.shell.abort()

    async def _get_state(self, command: dict[str, Any]) -> Any:
        return state_of(self.shell)

    async def _get_messages(self, command: dict[str, Any]) -> Any:
        return {"messages": [to_wire(m) for m in self.shell.messages]}

    # ------------------------------------------------------------------ the queue

    def _queue(self) -> dict[str, Any]:
        return queue_of(self.shell.queued())

    async def _get_queue(self, command: dict[str, Any]) -> Any:
        return self._queue()

    async def _edit_queued(self, command: dict[str, Any]) -> Any:
        self.shell.queue.edit(self._text(command, "itemId"), self._text(command, "text"))
        return self._queue()

    async def _remove_queued(self, command: dict[str, Any]) -> Any:
        self.shell.queue.remove(self._text(command, "itemId"))
        return self._queue()

    async def _move_queued(self, command: dict[str, Any]) -> Any:
        index = command.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            raise RpcError('"index" (an integer) is required')
        self.shell.queue.move(self._text(command, "itemId"), index)
        return self._queue()

    async def _promote_queued(self, command: dict[str, Any]) -> Any:
        self.shell.queue.promote(self._text(command, "itemId"))
        return self._queue()

    async def _take_queued(self, command: dict[str, Any]) -> Any:
        return queue_of(self.shell.take_queued())

    async def _set_model(self, command: dict[str, Any]) -> Any:
        await self._settle()
        spec = command.get("model")
        if not spec and command.get("modelId"):
            provider = command.get("provider")
            spec = f"{provider}/{command['modelId']}" if provider else command["modelId"]
        if not isinstance(spec, str) or not spec:
            raise RpcError('"provider" and "modelId" (or "model") are required')
        self.shell.set_model(spec)
        return {"model": self.shell.model_id}

    async def _get_available_models(self, command: dict[str, Any]) -> Any:
        from pi_cli.modes.list_models import available_models

        needle = command.get("filter")
        try:
            models = await asyncio.to_thread(
                available_models,
                needle if isinstance(needle, str) else None,
                self.shell.settings.local_probe_ports,
            )
        except Exception as exc:  # noqa: BLE001 - a bad models.json carries a user-facing message
            raise RpcError(str(exc)) from None
        return {"models": models}

    async def _compact(self, command: dict[str, Any]) -> Any:
        if self.shell.state == "running":
            self.shell.ensure_idle("compact")  # refuse now: a live run is not waited for
        name, request_id = command["type"], command.get("id")
        # A task: abort, get_state and steer are served while the summary is written.
        task = asyncio.ensure_future(self._run_compact(command, name, request_id))
        self.tasks.add(task)  # type: ignore[arg-type]
        task.add_done_callback(self.tasks.discard)  # type: ignore[arg-type]
        raise _Deferred

    async def _run_compact(self, command: dict[str, Any], name: str, request_id: Any) -> None:
        try:
            await self._settle()
            instructions = command.get("customInstructions")
            result = await self.shell.compact(
                instructions if isinstance(instructions, str) else None
            )
        except Exception as exc:  # noqa: BLE001 - CompactionError: a user-facing message
            self.respond(name, request_id, error=str(exc))
            return
        self.respond(
            name,
            request_id,
            data={
                "summary": result.summary,
                "firstKeptEntryId": result.first_kept_entry_id,
                "tokensBefore": result.tokens_before,
                "tokensAfter": result.tokens_after,
            },
        )

    async def _new_session(self, command: dict[str, Any]) -> Any:
        await self._settle()
        self.shell.new_session()
        return {"sessionId": self.shell.session.session_id, "cancelled": False}

    async def _switch_session(self, command: dict[str, Any]) -> Any:
        await self._settle()
        ref = command.get("sessionPath") or command.get("session")
        if not isinstance(ref, str) or not ref:
            raise RpcError('"sessionPath" is required')
        self.shell.switch_session(ref)
        return {"sessionId": self.shell.session.session_id, "cancelled": False}

    async def _fork(self, command: dict[str, Any]) -> Any:
        await self._settle()
        path = self.shell.fork(command.get("entryId"))
        return {
            "sessionFile": str(path),
            "sessionId": self.shell.session.session_id,
            "cancelled": False,
        }

    async def _get_last_assistant_text(self, command: dict[str, Any]) -> Any:
        messages = self.shell.messages
        last = next((m for m in reversed(messages) if isinstance(m, AssistantMessage)), None)
        return {"text": last.text if last is not None else None}

    async def _get_session_stats(self, command: dict[str, Any]) -> Any:
        return session_stats(self.shell)
