"""``pi --mode rpc``: JSON commands on stdin, responses and events as JSON lines on stdout.

Framing is LF only: stdin is read as bytes and split on ``b"\\n"``, so U+2028/U+2029 inside a
JSON string are not line breaks. Each command may carry an ``id``, echoed in its response
``{"type": "response", "command", "success", "data" | "error", "id"}``. Events have the JSON
mode's shape (:func:`pi_cli.modes.json_writer.event_line`). Prompts run as background tasks, so
``steer``, ``follow_up`` and ``abort`` are served while a run is live.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any, BinaryIO

from agent_core import (
    AgentEnd,
    AgentStart,
    AssistantMessage,
    ToolResultMessage,
    UserMessage,
    to_wire,
)
from pi_cli.launch import EXIT_OK, LaunchArgs
from pi_cli.modes.common import build_shell
from pi_cli.modes.json_writer import event_line, write_command_output
from pi_cli.shell.coding_agent import ConfigError
from pi_cli.shell.compaction import CompactionError
from pi_cli.shell.events import Notice
from pi_cli.shell.jsonl import dumps_line
from pi_cli.shell.session_store import SessionError

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


async def _serve_and_close(shell: Any) -> int:
    try:
        return await serve(shell, sys.stdin.buffer, sys.stdout.buffer)
    finally:
        await shell.aclose()


async def serve(shell: Any, stdin: BinaryIO, stdout: BinaryIO) -> int:
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
    return EXIT_OK


class RpcServer:
    """Command dispatch and output for one shell."""

    def __init__(self, shell: Any, stdout: BinaryIO) -> None:
        self.shell = shell
        self.stdout = stdout
        self.run_task: asyncio.Task[Any] | None = None
        # True between a run's agent_end and the end of its task (compaction, overflow retry):
        # a new prompt then waits for that epilogue instead of being refused.
        self.run_ended = True
        self.run_started = True  # False from a prompt until its agent_start
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

    def write_event(self, event: Any) -> None:
        """Shell listener: one event per line."""
        if isinstance(event, AgentStart):
            self.run_ended = False
            self.run_started = True
        elif isinstance(event, AgentEnd):
            self.run_ended = True
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

    @property
    def busy(self) -> bool:
        """True while a prompt runs (not in the epilogue after its ``agent_end``)."""
        pending = self.run_task is not None and not self.run_task.done()
        # agent_end is emitted while the agent still reports streaming: run_ended decides.
        return not self.run_ended and (pending or self.shell.is_streaming)

    async def _settle(self) -> None:
        """Let a finished run's epilogue (compaction, retry) complete."""
        if self.run_task is not None and not self.run_task.done() and self.run_ended:
            await asyncio.gather(self.run_task, return_exceptions=True)

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
        except (
            RpcError,
            SessionError,
            ConfigError,
            CompactionError,
        ) as exc:  # user-facing messages
            self.respond(name, request_id, error=str(exc))
        except Exception as exc:  # noqa: BLE001 - one bad command must not stop the server
            self.respond(name, request_id, error=f"{type(exc).__name__}: {exc}")
        else:
            self.respond(name, request_id, data=data)

    async def drain(self) -> None:
        """Wait for the live run (stdin closed while the model works)."""
        if self.run_task is not None:
            await asyncio.gather(self.run_task, return_exceptions=True)

    @staticmethod
    def _message(command: dict[str, Any]) -> str:
        message = command.get("message")
        if not isinstance(message, str):
            raise RpcError('"message" (a string) is required')
        # A lone surrogate ("\ud800") is valid JSON but no text: replace it rather than fail later.
        return message.encode("utf-8", "replace").decode("utf-8")

    # ------------------------------------------------------------------ commands

    async def _prompt(self, command: dict[str, Any]) -> Any:
        message = self._message(command)
        if self.busy:
            behaviour = command.get("streamingBehavior")
            if behaviour == "steer":
                self.shell.steer(message)
            elif behaviour == "followUp":
                self.shell.follow_up(message)
            else:
                raise RpcError(
                    'The agent is running: set "streamingBehavior" to "steer" or "followUp"'
                )
            return None
        self.run_ended = False
        self.run_started = False
        self.run_task = asyncio.create_task(self._run(message, self.run_task))
        return None

    async def _run(self, message: str, previous: asyncio.Task[Any] | None) -> None:
        try:
            if previous is not None:
                await asyncio.gather(previous, return_exceptions=True)
            result = await self.shell.submit(message)
            write_command_output(self.write_event, result)
        except asyncio.CancelledError:  # aborted before the run started (see _abort)
            pass
        except Exception as exc:  # noqa: BLE001 - report, keep serving
            self.write_event(
                Notice(text=f"prompt failed: {type(exc).__name__}: {exc}", level="error")
            )

    async def _steer(self, command: dict[str, Any]) -> Any:
        self.shell.steer(self._message(command))

    async def _follow_up(self, command: dict[str, Any]) -> Any:
        self.shell.follow_up(self._message(command))

    async def _abort(self, command: dict[str, Any]) -> Any:
        self.shell.abort()
        task = self.run_task
        if task is not None and not task.done() and not self.run_started:
            # Still waiting for the previous run or in the input hooks: never start it. (A task
            # cancelled before its first step never enters _run's handlers: report it here.)
            task.cancel()
            self.run_ended = True
            self.write_event(Notice(text="Aborted before the run started.", level="info"))

    async def _get_state(self, command: dict[str, Any]) -> Any:
        shell = self.shell
        state = shell.agent.state
        return {
            "model": shell.model_id,
            "thinkingLevel": shell.thinking,
            "isStreaming": self.busy,
            "isIdle": self.run_task is None or self.run_task.done(),
            "isCompacting": shell.compactor.is_compacting,
            "steeringMode": shell.agent.steering_mode,
            "followUpMode": shell.agent.follow_up_mode,
            "sessionFile": str(shell.session.path) if shell.session.path else None,
            "sessionId": shell.session.session_id,
            "autoCompactionEnabled": shell.settings.compaction.enabled,
            "messageCount": len(state.messages),
            "pendingMessageCount": len(state.steering_queue) + len(state.follow_up_queue),
        }

    async def _get_messages(self, command: dict[str, Any]) -> Any:
        return {"messages": [to_wire(m) for m in self.shell.agent.state.messages]}

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
        await self._settle()
        self.shell.ensure_idle("compact")  # refuse now, not after the queue
        name, request_id = command["type"], command.get("id")
        # A task: abort, get_state and steer are served while the summary is written.
        self.run_task = asyncio.create_task(
            self._run_compact(command, name, request_id, self.run_task)
        )
        raise _Deferred

    async def _run_compact(
        self,
        command: dict[str, Any],
        name: str,
        request_id: Any,
        previous: asyncio.Task[Any] | None,
    ) -> None:
        if previous is not None:
            await asyncio.gather(previous, return_exceptions=True)
        try:
            result = await self.shell.compact(command.get("customInstructions"))
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
        messages = self.shell.agent.state.messages
        last = next((m for m in reversed(messages) if isinstance(m, AssistantMessage)), None)
        return {"text": last.text if last is not None else None}

    async def _get_session_stats(self, command: dict[str, Any]) -> Any:
        shell = self.shell
        messages = shell.agent.state.messages
        usage = shell.usage
        used, window = shell.context_usage()
        return {
            "sessionFile": str(shell.session.path) if shell.session.path else None,
            "sessionId": shell.session.session_id,
            "userMessages": sum(isinstance(m, UserMessage) for m in messages),
            "assistantMessages": sum(isinstance(m, AssistantMessage) for m in messages),
            "toolCalls": sum(
                len(m.tool_calls) for m in messages if isinstance(m, AssistantMessage)
            ),
            "toolResults": sum(isinstance(m, ToolResultMessage) for m in messages),
            "totalMessages": len(messages),
            "tokens": {
                "input": usage.input,
                "output": usage.output,
                "cacheRead": usage.cache_read,
                "cacheWrite": usage.cache_write,
                "total": usage.input + usage.output + usage.cache_read + usage.cache_write,
            },
            "cost": usage.cost,
            "contextTokens": used,
            "contextWindow": window,
        }
