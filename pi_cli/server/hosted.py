"""One session hosted by ``pi serve``: a CodingAgent, its RPC output, and the clients attached.

The shell is exactly the one every front end drives; this class only fans its RPC lines out
(serialised once, the same text for every client), keeps the current run's lines for clients
that attach later (:mod:`.backlog`), and gives each client an
:class:`~pi_cli.modes.rpc.connection.RpcConnection` of its own for its commands. Nothing here
stops a run when a client goes: only ``abort`` (from any client) or closing the session does.

Attaching is one synchronous step on the event loop: the ``attached`` line (the conversation
before the current input, the state, what a front end shows), the backlog, then the live lines,
so a client never misses or repeats a line.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent_core import AgentEnd, AgentStart
from pi_cli.modes.json_writer import write_command_output
from pi_cli.modes.rpc.connection import RpcConnection
from pi_cli.modes.rpc.front import front_state
from pi_cli.modes.rpc.output import RpcOutput
from pi_cli.modes.rpc.views import message_wire, state_of
from pi_cli.server.backlog import Backlog
from pi_cli.server.channel import ClientChannel
from pi_cli.shell import (
    REDACTOR,
    PermissionRequested,
    PermissionResolved,
    SessionChanged,
    ShellEvent,
    ShellStateChanged,
    dumps_line,
    session_name,
)

if TYPE_CHECKING:
    from agent_core import Message
    from pi_cli.shell import CodingAgent

Listener = Callable[["HostedSession", ShellEvent], None]


def line_text(data: dict[str, Any]) -> str:
    """One line as sent: compact JSON, keys masked, no newline.

    A ``message_update`` carries the partial message twice (``message`` and
    ``assistantMessageEvent.partial``, the same object): it is encoded once and written in both
    places, the same bytes as encoding the whole line (the partial is the event's last key)."""
    if data.get("type") == "message_update" and len(data) == 3:
        message, event = data.get("message"), data.get("assistantMessageEvent")
        if message is not None and isinstance(event, dict) and event.get("partial") is message:
            if next(reversed(event)) == "partial" and len(event) > 1:
                partial = _json(message)
                head = _json({k: v for k, v in event.items() if k != "partial"})[:-1]
                text = (
                    f'{{"type":"message_update","message":{partial},'
                    f'"assistantMessageEvent":{head},"partial":{partial}}}}}'
                )
                return REDACTOR(text).encode("utf-8", "backslashreplace").decode("utf-8")
    return dumps_line(data)[:-1].decode("utf-8")


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class HostedSession:
    """A shell and its clients.

    Args:
        shell: the session's CodingAgent.
        on_event: told of every event after the clients (the hub: registry, notifications).
    """

    def __init__(self, shell: CodingAgent, on_event: Listener | None = None) -> None:
        self.shell = shell
        self.created_at = time.time()
        self.last_activity = self.created_at
        self.run_started_at: float | None = None
        self.interrupted: str | None = None  # why the last run was cut short (server restart)
        self.clients: dict[int, tuple[ClientChannel, RpcConnection]] = {}
        self.backlog = Backlog()
        self.base_messages: tuple[Message, ...] = tuple(shell.messages)
        self._on_event = on_event
        self._idle = shell.state == "idle"
        self.output = RpcOutput(shell, self._publish)
        # What the shell said while it was built (warnings, a queue left when the session last
        # stopped) is replayed on subscribing: kept for the first client that attaches.
        self.greeting: list[str] = []
        self._greeting_open = True
        self._unsubscribe = shell.subscribe(self._event)
        self.output.flush()
        self._greeting_open = False

    # ------------------------------------------------------------------ identity

    @property
    def id(self) -> str:
        """The pi session id (it changes with ``/new``, ``/resume`` and forks)."""
        return self.shell.session.session_id

    @property
    def busy(self) -> bool:
        """An input is being handled (a run, hooks, a command, compaction)."""
        return self.shell.busy

    @property
    def waiting(self) -> list[PermissionRequested]:
        """Approvals waiting for a person."""
        return self.shell.permissions.pending

    # ------------------------------------------------------------------ events out

    def _event(self, event: ShellEvent) -> None:
        if isinstance(event, ShellStateChanged):
            self._state_changed(event)
        self.output(event)
        if isinstance(event, ShellStateChanged):  # interactive clients show the busy state
            self._publish({"type": "shell_state", "state": event.state})
        elif isinstance(event, AgentStart):
            self.interrupted = None
            self.run_started_at = self.run_started_at or time.time()
        elif isinstance(
            event, AgentEnd | SessionChanged | PermissionRequested | PermissionResolved
        ):
            self.last_activity = time.time()
        if self._on_event is not None:
            self._on_event(self, event)

    def _state_changed(self, event: ShellStateChanged) -> None:
        idle = event.state == "idle"
        if self._idle and not idle:  # a new input: its lines are the backlog from here
            self.output.flush()
            self.backlog.reset()
            self.base_messages = tuple(self.shell.messages)
            self.run_started_at = time.time()
        elif idle:
            self.run_started_at = None
        self._idle = idle
        self.last_activity = time.time()

    def _publish(self, data: dict[str, Any]) -> None:
        text = line_text(data)
        if self._greeting_open:
            self.greeting.append(text)
        if not self._idle:
            self.backlog.add(text, data)
        for channel, _ in self.clients.values():
            channel.send(text)

    # ------------------------------------------------------------------ clients

    def attach(self, channel: ClientChannel) -> RpcConnection:
        """Add a client: it is sent the whole conversation, then everything live."""
        self.output.flush()  # what is pending goes to the clients already there first
        hello = line_text(self.snapshot(channel))
        channel.send(hello)
        size = len(hello)
        if not self._idle:
            for text in self.backlog:
                channel.send(text)
                size += len(text)
        for text in self.greeting:
            channel.send(text)
            size += len(text)
        self.greeting = []
        channel.allow_backlog(size)
        connection = RpcConnection(
            self.shell, lambda data: channel.send(line_text(data)), self.output
        )
        self.clients[channel.id] = (channel, connection)
        return connection

    def detach(self, channel: ClientChannel) -> None:
        """A client left (its commands still running finish; the run goes on)."""
        self.clients.pop(channel.id, None)
        channel.close()
        self.last_activity = time.time()

    def snapshot(self, channel: ClientChannel) -> dict[str, Any]:
        """The ``attached`` line: the conversation before the backlog, and the state now."""
        messages = self.shell.messages if self._idle else self.base_messages
        return {
            "type": "attached",
            "clientId": channel.id,
            "session": self.summary(),
            "state": state_of(self.shell),
            "frontState": front_state(self.shell),
            "messages": [message_wire(m) for m in messages],
            "backlog": 0 if self._idle else len(self.backlog),
        }

    def command_output(self, result: Any) -> None:
        """Show a command's output to every client (a command run by the server itself)."""
        write_command_output(self.output, result)

    # ------------------------------------------------------------------ listing

    def summary(self) -> dict[str, Any]:
        """What ``pi ps`` and the web client's list show of this session."""
        shell = self.shell
        usage = shell.usage
        waiting = self.waiting
        first = waiting[0] if waiting else None
        return {
            "id": self.id,
            "cwd": str(shell.cwd),
            "sessionFile": str(shell.session.path) if shell.session.path else None,
            "name": session_name(shell.session),
            "title": _title(shell),
            "model": shell.model_id,
            "state": "interrupted" if self.interrupted and not self.busy else shell.state,
            "live": True,
            "waitingForApproval": len(waiting),
            "approval": {"tool": first.tool_name, "title": first.title} if first else None,
            "cost": usage.cost,
            "tokens": usage.input + usage.output + usage.cache_read + usage.cache_write,
            "messages": len(shell.messages),
            "clients": [
                {"id": c.id, "label": c.label, "since": c.connected_at}
                for c, _ in self.clients.values()
            ],
            "createdAt": self.created_at,
            "lastActivity": self.last_activity,
            "runStartedAt": self.run_started_at,
            "interrupted": self.interrupted,
        }

    async def close(self) -> None:
        """Abort a live run, drop the clients and close the shell (hooks, tools, MCP)."""
        for channel, _ in list(self.clients.values()):
            channel.drop("the session was closed")
        self.clients.clear()
        if self.shell.busy:
            self.shell.abort()
        self._unsubscribe()
        await self.shell.aclose()


def _title(shell: CodingAgent) -> str:
    """The first prompt of the conversation, on one line (what the session is about)."""
    for message in shell.messages:
        if message.role == "user":
            return " ".join(message.text.split())[:120]
    return ""
