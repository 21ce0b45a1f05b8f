"""RemoteShell: a shell hosted by ``pi serve``, as the TUI and the plain REPL drive it.

It satisfies :class:`~pi_cli.shell.FrontShell`, the interface those front ends use of a local
CodingAgent, so attaching is the same code path as running a session here. Input goes to the
server (``submit``: the server's shell decides what it becomes, exactly as locally); the events
come back through one WebSocket, are turned into the shell's events (:mod:`.decode`) and reach
the listeners after the mirror of the state (messages, queue, mode, model...) was updated, as
a local shell updates its state before it emits. Commands a front end registers itself (the
TUI's ``/theme``, ``/keys``) run here. Closing it never stops the run (``remote`` is true).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

from agent_core import ImageContent, Message, MessageEnd, to_wire
from pi_cli.server.client.decode import message_of
from pi_cli.server.client.keys import ExtensionKeysMirror
from pi_cli.server.client.link import SessionLink
from pi_cli.server.client.parts import (
    AgentToolsMirror,
    CheckpointsLink,
    DialogsMirror,
    GoalsMirror,
    LoadedFile,
    LoadedSkill,
    LspMirror,
    McpMirror,
    PermissionsMirror,
    QueueLink,
    SandboxMirror,
    SchedulesMirror,
    SessionMirror,
    SourcesMirror,
    UserBashLink,
    dialog_reply,
)
from pi_cli.shell import (
    ApprovalAnswer,
    CommandResult,
    FrontShell,
    GoalChanged,
    Intent,
    Notice,
    QueuedInput,
    SessionUsage,
    Settings,
    ShellEvent,
    ShellState,
    SlashCommand,
    SlashCommandRegistry,
    TreeEntry,
    UiChanged,
    context_tokens,
)

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

    from pi_cli.shell import ServedSource, ShellAPI

log = logging.getLogger("pi_cli.server")
LOCAL_SOURCES = frozenset({"tui"})
"""Commands of these sources were registered by this front end: they run here."""


async def _remote_command(shell: ShellAPI, args: str) -> CommandResult:
    """A server command's handler: never run here (``RemoteShell.submit`` sends the line)."""
    return CommandResult(output="this command runs in the server", error=True)


class RemoteShell(SessionLink):
    """The proxy (see the module docstring). Build it with
    :func:`~pi_cli.server.client.session.attach_remote`."""

    remote = True

    def __init__(self, ws: ClientConnection, hello: dict[str, Any]) -> None:
        super().__init__(ws)
        self._idle = asyncio.Event()
        self.client_id = int(hello.get("clientId", 0))
        self.summary: dict[str, Any] = dict(hello.get("session") or {})
        self.permissions = PermissionsMirror(self)
        self.sandbox = SandboxMirror()
        self.mcp = McpMirror()
        self.agent_tools = AgentToolsMirror()
        self.sources = SourcesMirror()
        self.queue = QueueLink(self)
        self.user_bash = UserBashLink()
        self.checkpoints = CheckpointsLink(self.request)
        self.commands = SlashCommandRegistry()
        self.dialogs = DialogsMirror()
        self.lsp = LspMirror()
        self.goals = GoalsMirror()
        self.schedules = SchedulesMirror()
        self.extensions = ExtensionKeysMirror(self)  # the extensions run in the server
        self.tools: list[Any] = []  # the tools run in the server (titles: describe_call)
        self.aborted = False
        self._tree: list[TreeEntry] = []
        self._queued: list[QueuedInput] = []
        self._apply_hello(hello)

    # ------------------------------------------------------------------ state from the server

    def _apply_hello(self, hello: dict[str, Any]) -> None:
        state, front = hello["state"], hello["frontState"]
        self.cwd = Path(front["cwd"])
        self.model_id = str(front["model"])
        self.thinking = str(front["thinkingLevel"])
        self.session = SessionMirror(front["sessionId"], _path(front.get("sessionFile")))
        self.settings = Settings.model_validate(front["settings"])
        self._state: ShellState = front["state"]
        self._idle.set() if self._state == "idle" else self._idle.clear()
        self.permissions.mode = str(front["permissionMode"])
        self.sandbox.shells.show(front.get("backgroundShells", []))
        self.mcp.servers = list(front.get("mcp", []))
        self.agent_tools.todos.items = list(front.get("todos", []))
        self.lsp.show_wire(front.get("lsp", []))
        self.goals.current = GoalChanged.model_validate({"goal": front.get("goal")})
        self.schedules.show(front.get("schedules", []))
        for piece in front.get("ui", []):
            self.dialogs.show(UiChanged.model_validate(piece))
        self._show_loaded(front)
        self._messages: list[Message] = [message_of(m) for m in hello.get("messages", [])]
        self.is_streaming = bool(state.get("isStreaming"))

    def _closed(self) -> None:
        self._idle.set()

    def _track(self, event: ShellEvent) -> None:
        """Update the mirror before listeners see ``event`` (as a local shell does)."""
        if isinstance(event, MessageEnd):
            self._messages.append(event.message)
            return
        track = _TRACKERS.get(getattr(event, "type", ""))
        if track is not None:
            track(self, event)

    def _state_changed(self, event: Any) -> None:
        self._state = event.state
        self._idle.set() if self._state == "idle" else self._idle.clear()

    def _model_changed(self, event: Any) -> None:
        self.model_id, self.thinking = event.model, event.thinking

    def _session_changed(self, event: Any) -> None:
        self.session = SessionMirror(event.session_id, _path(event.path))

    def _mode_changed(self, event: Any) -> None:
        self.permissions.mode = event.mode

    def _asked(self, event: Any) -> None:
        self.permissions.pending.append(event)

    def _resolved(self, event: Any) -> None:
        self.permissions.pending = [r for r in self.permissions.pending if r.id != event.id]

    def _dialog_asked(self, event: Any) -> None:
        self.dialogs.pending[event.id] = event

    def _dialog_resolved(self, event: Any) -> None:
        self.dialogs.pending.pop(event.id, None)

    def _queue_changed(self, event: Any) -> None:
        self._queued = [QueuedInput(i.id, i.text, i.kind) for i in event.items]

    def _shells_changed(self, event: Any) -> None:
        self.sandbox.shells.show(event.shells)

    def _mcp_changed(self, event: Any) -> None:
        self.mcp.servers = [to_wire(s) for s in event.servers]

    def _todos_changed(self, event: Any) -> None:
        self.agent_tools.todos.items = [to_wire(t) for t in event.todos]

    async def _resync(self) -> None:
        """The conversation and what a front end shows, fetched again (after a session switch,
        a compaction, a run: what no event carried, such as a ``!cmd`` joining the context)."""
        messages = await self.request({"type": "get_messages"})
        front = await self.request({"type": "get_front_state"})
        self._messages = [message_of(m) for m in messages["messages"]]
        self._show_loaded(front)
        await self.refresh_tree()

    def _show_loaded(self, front: dict[str, Any]) -> None:
        """What ``/reload``, a session switch or a compaction may change: the context window,
        the files and skills loaded, the extensions' keys."""
        self._context_window = int(front["contextWindow"])
        self.sources.context_files = [LoadedFile(Path(p)) for p in front.get("contextFiles", [])]
        self.sources.skills = [LoadedSkill(n) for n in front.get("skills", [])]
        self.extensions.show(front.get("extensionKeys", []))

    async def refresh_tree(self) -> None:
        """The session tree (for `/tree`), fetched again."""
        data = await self.request({"type": "get_tree"})
        self._tree = [
            TreeEntry(
                id=e["id"], parent_id=e.get("parentId"), type=e["type"], preview=e["preview"],
                depth=int(e["depth"]), is_leaf=bool(e["isLeaf"]), on_path=bool(e["onPath"]),
                role=e.get("role"), label=e.get("label"),
            )
            for e in data.get("entries", [])
        ]  # fmt: skip

    async def load_commands(self) -> None:
        """The server's slash commands (for completion, ``/help`` and the keys list)."""
        data = await self.request({"type": "get_slash_commands"})
        for item in data.get("commands", []):
            if self.commands.get(item["name"]) is None or item["source"] not in LOCAL_SOURCES:
                self.commands.register(
                    SlashCommand(
                        item["name"],
                        item.get("description", ""),
                        _remote_command,
                        usage=item.get("usage", ""),
                        aliases=tuple(item.get("aliases", [])),
                        source=item.get("source", "builtin"),
                        while_running=bool(item.get("whileRunning")),
                    )
                )

    # ------------------------------------------------------------------ FrontShell

    @property
    def messages(self) -> Sequence[Message]:
        """The conversation, as far as the server has said."""
        return tuple(self._messages)

    @property
    def usage(self) -> SessionUsage:
        """Token and cost totals of the conversation."""
        return SessionUsage.of(self._messages)

    def context_usage(self) -> tuple[int, int]:
        """(tokens in the context, the context window)."""
        return context_tokens(self._messages), self._context_window

    @property
    def state(self) -> ShellState:
        """What the remote shell is doing."""
        return self._state

    @property
    def busy(self) -> bool:
        """An input is being handled there."""
        return self._state != "idle"

    @property
    def streaming(self) -> bool:
        """A model run is live there."""
        return self.is_streaming

    def submit(
        self, text: str, intent: Intent = "auto", images: list[ImageContent] | None = None
    ) -> asyncio.Future[CommandResult | None]:
        """Hand ``text`` to the server's shell; the future resolves once it was handled there."""
        found = self.commands.lookup(text)
        if found is not None and found[0].source in LOCAL_SOURCES:
            command, args = found
            # This front end's own command: it uses the front end, not the shell.
            return asyncio.ensure_future(command.handler(cast("ShellAPI", self), args))
        command_line: dict[str, Any] = {"type": "submit", "message": text, "intent": intent}
        if images:
            command_line["images"] = [to_wire(image) for image in images]
        return asyncio.ensure_future(self._submit(command_line))

    async def _submit(self, command: dict[str, Any]) -> CommandResult | None:
        self.aborted = False
        data = await self.request(command, ordered=True)
        if (result := (data or {}).get("result")) is None:
            return None
        return CommandResult(
            output=result.get("output"),
            quit=bool(result.get("quit")),
            action=result.get("action"),
            prompt=result.get("prompt"),
            error=bool(result.get("error")),
            clipboard=result.get("clipboard"),
        )

    def answer(self, request_id: str, answer: object) -> bool:
        """Answer an approval or a dialog (the first client to answer wins; the others see the
        result). Raises ValueError when the answer has no shape the server takes."""
        dialog = self.dialogs.pending.get(request_id)
        command: dict[str, Any] = {"type": "extension_ui_response"}
        if dialog is not None:
            command.update(dialog_reply(dialog, answer))
        else:
            parsed = ApprovalAnswer.parse(answer)
            command.update(value=parsed.choice, scope=parsed.scope)
            if parsed.message:
                command["message"] = parsed.message
        known = dialog is not None or any(r.id == request_id for r in self.permissions.pending)
        task = asyncio.ensure_future(self._answer(request_id, command))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return known

    def notify(self, text: str, level: Literal["info", "warning", "error"] = "info") -> None:
        """A notice for this client's front end only (the server's shell does not see it)."""
        self._emit(Notice(text=text, level=level))

    def abort(self) -> None:
        """Abort what the remote shell is doing (any client may)."""
        self.aborted = True
        self.send({"type": "abort"})

    @property
    def run_aborted(self) -> bool:
        """This client aborted the input being handled."""
        return self.aborted

    def queued(self) -> list[QueuedInput]:
        """What is queued there."""
        return list(self._queued)

    def take_queued(self) -> list[QueuedInput]:
        """Take everything queued back (into this client's editor)."""
        taken, self._queued = self._queued, []
        if taken:
            self.send({"type": "take_queued"})
        return taken

    async def wait_idle(self) -> None:
        """Until the remote shell is idle (or the connection is gone)."""
        await self._idle.wait()

    def served_sources(self) -> list[ServedSource]:  # the server's --api-base is its own
        return []

    def describe_call(self, tool_name: str, args: object) -> str:
        """A tool call's title, as the tool words it (computed here from the arguments)."""
        return describe_call(tool_name, args)

    def tree_entries(self) -> list[TreeEntry]:
        """The session tree (as of the last run, session switch or attach)."""
        return list(self._tree)

    def navigate_to(self, entry_id: str) -> str | None:
        """Continue from ``entry_id`` (the server moves; the transcript follows its event)."""
        self.send({"type": "navigate_tree", "entryId": entry_id})
        return None


_TRACKERS: dict[str, Callable[[RemoteShell, Any], None]] = {
    "shell_state": RemoteShell._state_changed,
    "agent_start": lambda shell, event: setattr(shell, "is_streaming", True),
    "agent_end": lambda shell, event: setattr(shell, "is_streaming", False),
    "model_changed": RemoteShell._model_changed,
    "session_changed": RemoteShell._session_changed,
    "permission_mode_changed": RemoteShell._mode_changed,
    "permission_requested": RemoteShell._asked,
    "permission_resolved": RemoteShell._resolved,
    "dialog_requested": RemoteShell._dialog_asked,
    "dialog_resolved": RemoteShell._dialog_resolved,
    "ui_changed": lambda shell, event: shell.dialogs.show(event),
    "queue_changed": RemoteShell._queue_changed,
    "lsp_status": lambda shell, event: shell.lsp.show(event.servers),
    "goal_changed": lambda shell, event: setattr(shell.goals, "current", event),
    "schedules_changed": lambda shell, event: setattr(shell.schedules, "current", event),
    "background_shells": RemoteShell._shells_changed,
    "mcp_status": RemoteShell._mcp_changed,
    "todo_updated": RemoteShell._todos_changed,
    "background_agent": lambda shell, event: shell.agent_tools.note_agent(event.agent),
}
"""What each kind of event changes in the mirror."""
_TITLES: dict[str, Any] = {}


def describe_call(tool_name: str, args: object) -> str:
    """The title of a built-in tool's call ("" for another tool, e.g. an MCP one)."""
    from tools import TOOL_FACTORIES

    if (factory := TOOL_FACTORIES.get(tool_name)) is None:
        return ""
    tool = _TITLES.get(tool_name)
    if tool is None:
        try:
            tool = _TITLES[tool_name] = factory(Path.cwd())
        except Exception:  # noqa: BLE001 - a title is a nicety: never break rendering for it
            return ""
    try:
        return str(tool.title(args if isinstance(args, dict) else {}))
    except Exception:  # noqa: BLE001 - same
        return ""


def _path(value: object) -> Path | None:
    return Path(value) if isinstance(value, str) and value else None


def _conforms(shell: RemoteShell) -> FrontShell:
    """Checked by mypy: the proxy has every part of the interface front ends use."""
    return shell
