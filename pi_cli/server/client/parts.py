"""The parts of a remote shell a front end reads (:class:`~pi_cli.shell.FrontShell`'s views).

Each mirrors what the server last said (the ``attached`` line, then events) and sends what the
user does as RPC commands through :class:`Link` (fire and forget: a failure comes back as a
notice; the state follows from the events every client receives).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from pi_cli.shell import (
    CommandResult,
    DialogAnswer,
    DialogRequested,
    FileStat,
    GoalChanged,
    LspStatusChanged,
    PermissionRequested,
    Restored,
    RewindPlan,
    RewindPoint,
    RewindResult,
    SchedulesChanged,
    UiChanged,
)


class Link(Protocol):
    """How a part reaches the server."""

    def send(self, command: dict[str, Any]) -> None:
        """Send a command; its failure becomes a notice."""
        ...

    async def request(self, command: dict[str, Any]) -> Any:
        """Send a command and return its response's ``data`` (raises ``RemoteError``)."""
        ...


@dataclass
class SessionMirror:
    """The session file the remote shell writes."""

    session_id: str
    path: Path | None


@dataclass
class PermissionsMirror:
    """The permission mode and the approvals waiting (answered through the shell)."""

    link: Link
    mode: str = "default"
    pending: list[PermissionRequested] = field(default_factory=list)

    def cycle(self) -> str:
        """Ask for the next mode (Shift+Tab); the footer follows ``permission_mode_changed``."""
        self.link.send({"type": "cycle_permission_mode"})
        return self.mode

    def set_mode(self, mode: str) -> str:
        """Ask for ``mode``."""
        self.link.send({"type": "set_permission_mode", "mode": mode})
        return self.mode


@dataclass
class DialogsMirror:
    """The dialogs waiting in the server's shell and its extension UI (from its events)."""

    pending: dict[str, DialogRequested] = field(default_factory=dict)
    ui: dict[tuple[str, str], UiChanged] = field(default_factory=dict)
    editor_text: Callable[[], str] | None = None
    """The local editor (the server's extensions do not read it: pi-ts's RPC gives "")."""

    def knows(self, request_id: str) -> bool:
        """``request_id`` is a dialog waiting for its answer."""
        return request_id in self.pending

    def ui_state(self) -> list[UiChanged]:
        """Every piece of UI set now."""
        return list(self.ui.values())

    def show(self, piece: UiChanged) -> None:
        """A piece set or cleared (editor text is an action, not kept)."""
        if piece.slot == "editor":
            return
        if piece.cleared:
            self.ui.pop((piece.slot, piece.key), None)
        else:
            self.ui[(piece.slot, piece.key)] = piece


def dialog_reply(request: DialogRequested, answer: object) -> dict[str, Any]:
    """A front end's answer to ``request`` as the answer fields of an ``extension_ui_response``
    (the server's shell checks it against the question again)."""
    if not isinstance(answer, DialogAnswer):
        if isinstance(answer, bool):
            return {"confirmed": answer}
        if isinstance(answer, str):
            return {"value": answer}
        if isinstance(answer, dict):
            return dict(answer)
        raise ValueError("an answer is a DialogAnswer, a mapping, a string or a bool")
    if answer.cancelled:
        return {"cancelled": True}
    if request.kind == "confirm":
        return {"confirmed": answer.confirmed}
    if request.kind in ("input", "editor"):
        return {"value": answer.text or ""}
    reply: dict[str, Any] = {"values": list(answer.values)}
    if answer.other is not None:
        reply["other"] = answer.other
    return reply


@dataclass
class GoalsMirror:
    """The goal the server's shell pursues (from its ``goal_changed`` events)."""

    current: GoalChanged = field(default_factory=GoalChanged)

    def event(self) -> GoalChanged:
        """The goal as an event (as the local shell's goals give it)."""
        return self.current


@dataclass
class SchedulesMirror:
    """The server's shell's active schedules (from its ``schedules_changed`` events)."""

    current: SchedulesChanged = field(default_factory=SchedulesChanged)

    def event(self) -> SchedulesChanged:
        """The schedules as an event (as the local shell's schedules give it)."""
        return self.current

    def show(self, schedules: list[Any]) -> None:
        """The schedules in their wire shape (``get_front_state``'s)."""
        self.current = SchedulesChanged.model_validate({"schedules": schedules})


_LSP_MARKS = {"ready": "✓", "starting": "…", "restarting": "…", "failed": "✗", "stopped": "-"}


@dataclass
class LspMirror:
    """The language servers the server's shell started (from its ``lsp_status`` events)."""

    servers: dict[str, Any] = field(default_factory=dict)  # name -> its status

    @property
    def started(self) -> LspMirror | None:
        """Itself once a server started (as the local shell's door)."""
        return self if self.servers else None

    def show(self, statuses: Sequence[Any]) -> None:
        """Every started server's status now."""
        self.servers = {status.name: status for status in statuses}

    def show_wire(self, servers: list[dict[str, Any]]) -> None:
        """The states a ``get_front_state`` lists."""
        self.show(LspStatusChanged.model_validate({"servers": servers}).servers)

    def footer(self) -> str:
        """``LSP python✓ typescript…`` (as the local shell's manager writes it)."""
        parts = [f"{name}{_LSP_MARKS.get(s.state, '?')}" for name, s in self.servers.items()]
        return "LSP " + " ".join(parts) if parts else ""


@dataclass
class ShellInfoMirror:
    """One background shell (what ``/bashes`` lists)."""

    id: str
    command: str
    state: str
    exit_code: int | None = None
    pid: int | None = None
    started_at: float = 0.0
    sandboxed: bool = True
    ended_at: float | None = None
    monitor: str | None = None


@dataclass
class ShellsMirror:
    """The remote session's background shells."""

    items: list[ShellInfoMirror] = field(default_factory=list)

    @property
    def running(self) -> int:
        """How many still run."""
        return sum(item.state == "running" for item in self.items)

    def infos(self) -> list[ShellInfoMirror]:
        """Every shell, oldest first."""
        return list(self.items)

    def get(self, shell_id: str) -> None:
        """No output here: the shells' output stays in the server (``/bashes view`` asks it)."""

    def show(self, shells: Sequence[Any]) -> None:
        """The list a ``background_shells`` event (or the front state) carries."""
        self.items = [
            ShellInfoMirror(
                id=str(_get(s, "id")),
                command=str(_get(s, "command")),
                state=str(_get(s, "state")),
                exit_code=_get(s, "exit_code", "exitCode"),
                pid=_get(s, "pid"),
                started_at=float(_get(s, "started_at", "startedAt") or time.time()),
                sandboxed=bool(_get(s, "sandboxed")),
                monitor=_get(s, "monitor"),
            )
            for s in shells
        ]


def _get(item: Any, name: str, alias: str | None = None) -> Any:
    if isinstance(item, dict):
        return item.get(alias or name, item.get(name))
    return getattr(item, name, None)


@dataclass
class SandboxMirror:
    """The sandbox as a footer shows it."""

    shells: ShellsMirror = field(default_factory=ShellsMirror)
    keep_background: bool = True  # the shells live in the server: a client never stops them


@dataclass
class McpMirror:
    """The MCP servers' states."""

    servers: list[dict[str, Any]] = field(default_factory=list)

    def footer(self) -> str:
        """``MCP 2/3`` (``!`` when one failed), "" with none (as the local shell words it)."""
        if not self.servers:
            return ""
        states = [str(s.get("state")) for s in self.servers]
        failed = " !" if "failed" in states else ""
        return f"MCP {states.count('ready')}/{len(states)}{failed}"


@dataclass
class TodosMirror:
    """The todo list."""

    items: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class AgentToolsMirror:
    """The agent tools' state a front end shows."""

    todos: TodosMirror = field(default_factory=TodosMirror)
    statuses: dict[str, str] = field(default_factory=dict)  # background agents by id

    def note_agent(self, info: Any) -> None:
        """A ``background_agent`` event's agent (its id and status)."""
        self.statuses[info.id] = info.status

    @property
    def running_agents(self) -> int:
        """Background sub-agents running now (the footer counts them)."""
        return sum(1 for status in self.statuses.values() if status == "running")


@dataclass(frozen=True)
class LoadedFile:
    """A context file loaded by the remote shell."""

    path: Path


@dataclass(frozen=True)
class LoadedSkill:
    """A skill loaded by the remote shell."""

    name: str


@dataclass
class SourcesMirror:
    """What the remote shell loaded into its system prompt."""

    context_files: list[LoadedFile] = field(default_factory=list)
    skills: list[LoadedSkill] = field(default_factory=list)


@dataclass
class QueueLink:
    """Changing one queued item (the queue screen); the screen redraws from ``queue_changed``."""

    link: Link

    def edit(self, item_id: str, text: str) -> None:
        self.link.send({"type": "edit_queued", "itemId": item_id, "text": text})

    def remove(self, item_id: str) -> None:
        self.link.send({"type": "remove_queued", "itemId": item_id})

    def move(self, item_id: str, index: int) -> None:
        self.link.send({"type": "move_queued", "itemId": item_id, "index": index})

    def promote(self, item_id: str) -> None:
        self.link.send({"type": "promote_queued", "itemId": item_id})


class UserBashLink:
    """``!cmd``: handed to the server with the rest of the input (its ``submit`` runs it)."""

    def start(self, text: str) -> asyncio.Future[CommandResult | None] | None:
        return None


@dataclass
class CheckpointsLink:
    """``/rewind`` and the tree's code restore, through the server's ``rewind`` command."""

    request: Callable[[dict[str, Any]], Awaitable[Any]]

    async def points(self) -> list[RewindPoint]:
        data = await self.request({"type": "rewind"})
        return [
            RewindPoint(
                entry_id=p["entryId"],
                text=p["text"],
                timestamp=p["timestamp"],
                files=[FileStat(f["path"], f["added"], f["removed"]) for f in p.get("files", [])],
                has_code=bool(p.get("hasCode")),
            )
            for p in data.get("points", [])
        ]

    async def plan(self, entry_id: str) -> RewindPlan:
        data = await self.request({"type": "rewind", "entryId": entry_id, "dryRun": True})
        return plan_of(data["plan"])

    async def rewind(
        self,
        entry_id: str,
        *,
        code: bool = True,
        conversation: bool = True,
        overwrite: bool | None = None,
        summarize: bool = False,
    ) -> RewindResult:
        mode = "both" if code and conversation else ("code" if code else "conversation")
        command: dict[str, Any] = {"type": "rewind", "entryId": entry_id, "mode": mode}
        if overwrite is not None:
            command["overwrite"] = overwrite
        if summarize:
            command["summarize"] = True
        return result_of(await self.request(command))

    async def undo(self, overwrite: bool | None = None) -> RewindResult:
        command: dict[str, Any] = {"type": "rewind", "undo": True}
        if overwrite is not None:
            command["overwrite"] = overwrite
        return result_of(await self.request(command))


def plan_of(wire: dict[str, Any]) -> RewindPlan:
    """A plan from its wire shape."""
    return RewindPlan(
        entry_id=wire["entryId"],
        changes=[(c["status"], c["path"]) for c in wire.get("changes", [])],
        by_hand=list(wire.get("byHand", [])),
        problem=wire.get("problem"),
        leaves_branch=bool(wire.get("leavesBranch")),
    )


def result_of(wire: dict[str, Any]) -> RewindResult:
    """A done rewind from its wire shape."""
    restored = wire.get("restored") or {}
    return RewindResult(
        entry_id=wire["entryId"],
        text=wire.get("text"),
        plan=RewindPlan(entry_id=wire["entryId"], by_hand=list(wire.get("byHand", []))),
        restored=Restored(
            written=list(restored.get("written", [])),
            deleted=list(restored.get("deleted", [])),
            failed=list(restored.get("failed", [])),
        ),
        undo_id=wire.get("undoEntryId"),
        moved=bool(wire.get("moved")),
    )
