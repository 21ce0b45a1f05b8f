"""What interactive front ends (the TUI, the plain REPL) use of a shell: :class:`FrontShell`.

The CodingAgent satisfies it, and so does the proxy of a shell hosted by ``pi serve``
(``pi_cli.server.client.remote.RemoteShell``): the TUI and the REPL are written against this
protocol, so attaching to a session that lives in the server is the same code path as running
one here. Sub-objects are protocols of their own, each no more than what is used.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from agent_core import ImageContent, Message
    from pi_cli.shell.checkpoints.rewind import RewindPlan, RewindPoint, RewindResult
    from pi_cli.shell.commands import CommandResult, SlashCommandRegistry
    from pi_cli.shell.config.settings import Settings
    from pi_cli.shell.events import Listener, PermissionRequested, ShellState
    from pi_cli.shell.events.dialogs import UiChanged
    from pi_cli.shell.events.long_running import GoalChanged, SchedulesChanged
    from pi_cli.shell.input_policy import Intent
    from pi_cli.shell.input_queue import QueuedInput
    from pi_cli.shell.models.served import ServedSource
    from pi_cli.shell.models.usage import SessionUsage
    from pi_cli.shell.session.tree import TreeEntry


class SessionView(Protocol):
    """The session file a shell writes."""

    @property
    def session_id(self) -> str: ...
    @property
    def path(self) -> Path | None: ...


class PermissionsView(Protocol):
    """The permission mode and the approvals waiting."""

    @property
    def mode(self) -> str: ...
    @property
    def pending(self) -> list[PermissionRequested]: ...
    def cycle(self) -> str: ...


class ShellInfoView(Protocol):
    """One background shell as a picker lists it."""

    @property
    def id(self) -> str: ...
    @property
    def command(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def exit_code(self) -> int | None: ...
    @property
    def started_at(self) -> float: ...
    @property
    def sandboxed(self) -> bool: ...
    @property
    def monitor(self) -> str | None: ...


class OutputTailView(Protocol):
    """The last lines of an output, with the totals (``tools``' ``Truncation``)."""

    @property
    def content(self) -> str: ...
    @property
    def truncated(self) -> bool: ...
    @property
    def output_lines(self) -> int: ...
    @property
    def total_lines(self) -> int: ...


class OutputBufferView(Protocol):
    """A command's output as it is held (memory, spilled to a file when long)."""

    @property
    def total_bytes(self) -> int: ...
    def tail(self) -> OutputTailView: ...


class BackgroundShellView(Protocol):
    """One background shell whose output this process reads (a live view follows it)."""

    @property
    def buffer(self) -> OutputBufferView: ...
    @property
    def eof(self) -> asyncio.Event:
        """Set once its output has all been read (after it exits, the pipe may still hold some)."""
        ...

    def info(self) -> ShellInfoView: ...


class BackgroundShellsView(Protocol):
    """The background shells (``bash`` with ``background: true``)."""

    @property
    def running(self) -> int: ...
    def infos(self) -> Sequence[ShellInfoView]: ...
    def get(self, shell_id: str) -> BackgroundShellView | None: ...


class SandboxView(Protocol):
    """The sandbox, as far as a footer and ``/bashes`` show it."""

    @property
    def shells(self) -> BackgroundShellsView: ...
    @property
    def keep_background(self) -> bool: ...


class McpView(Protocol):
    """The MCP servers, as the footer shows them."""

    def footer(self) -> str: ...


class TodosView(Protocol):
    """The todo list the model keeps."""

    @property
    def items(self) -> list[dict[str, Any]]: ...


class AgentToolsView(Protocol):
    """The agent tools' state a front end shows."""

    @property
    def todos(self) -> TodosView: ...
    @property
    def running_agents(self) -> int: ...


class HasPath(Protocol):
    """A loaded file (a context file)."""

    @property
    def path(self) -> Path: ...


class HasName(Protocol):
    """A loaded skill."""

    @property
    def name(self) -> str: ...


class SourcesView(Protocol):
    """What was loaded into the system prompt (the TUI's header lists it)."""

    @property
    def context_files(self) -> Sequence[HasPath]: ...
    @property
    def skills(self) -> Iterable[HasName]: ...


class QueueView(Protocol):
    """Changing one queued input (the queue screen); raises ``QueueError`` when it is gone."""

    def edit(self, item_id: str, text: str) -> object: ...
    def remove(self, item_id: str) -> object: ...
    def move(self, item_id: str, index: int) -> object: ...
    def promote(self, item_id: str) -> object: ...


class UserBashView(Protocol):
    """The user's own ``!cmd``."""

    def start(self, text: str) -> asyncio.Future[CommandResult | None] | None: ...


class CheckpointsView(Protocol):
    """``/rewind`` and the tree's "restore the code"."""

    async def points(self) -> list[RewindPoint]: ...
    async def plan(self, entry_id: str) -> RewindPlan: ...
    async def rewind(
        self,
        entry_id: str,
        *,
        code: bool = True,
        conversation: bool = True,
        overwrite: bool | None = None,
        summarize: bool = False,
    ) -> RewindResult: ...
    async def undo(self, overwrite: bool | None = None) -> RewindResult: ...


class DialogsView(Protocol):
    """Dialogs waiting for an answer and the extension UI set now."""

    editor_text: Callable[[], str] | None
    """Set by a front end with an editor: what is typed in it (``ctx.ui.get_editor_text``)."""

    def knows(self, request_id: str) -> bool: ...
    def ui_state(self) -> list[UiChanged]: ...


class ExtensionKeyView(Protocol):
    """A key binding an extension registered."""

    @property
    def id(self) -> str: ...
    @property
    def keys(self) -> str: ...
    @property
    def description(self) -> str: ...


class ExtensionsView(Protocol):
    """The extensions' key bindings, as the TUI binds them."""

    def keys(self) -> Sequence[ExtensionKeyView]: ...
    def start_key(self, key_id: str) -> None: ...


class LspServersView(Protocol):
    """The language servers started, as a footer shows them."""

    @property
    def servers(self) -> Mapping[str, Any]: ...
    def footer(self) -> str: ...


class LspView(Protocol):
    """Code intelligence: ``started`` is None until a language server was asked for."""

    @property
    def started(self) -> LspServersView | None: ...


class GoalsView(Protocol):
    """The goal being pursued (``/goal``), as a footer shows it."""

    def event(self) -> GoalChanged: ...


class SchedulesView(Protocol):
    """The session's active loops and schedules (``/loop``), as a footer shows them."""

    def event(self) -> SchedulesChanged: ...


class FrontShell(Protocol):
    """A shell as the TUI and the plain REPL drive it (see the module docstring).

    ``remote``: the shell lives in ``pi serve``; closing this front end leaves its run going
    (a local front end aborts the run it owns when it quits).
    """

    @property
    def remote(self) -> bool: ...
    @property
    def cwd(self) -> Path: ...
    @property
    def model_id(self) -> str: ...
    @property
    def thinking(self) -> str: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def session(self) -> SessionView: ...
    @property
    def commands(self) -> SlashCommandRegistry: ...
    @property
    def messages(self) -> Sequence[Message]: ...
    @property
    def usage(self) -> SessionUsage: ...
    @property
    def state(self) -> ShellState: ...
    @property
    def busy(self) -> bool: ...
    @property
    def permissions(self) -> PermissionsView: ...
    @property
    def sandbox(self) -> SandboxView: ...
    @property
    def mcp(self) -> McpView: ...
    @property
    def agent_tools(self) -> AgentToolsView: ...
    @property
    def sources(self) -> SourcesView: ...
    @property
    def queue(self) -> QueueView: ...
    @property
    def user_bash(self) -> UserBashView: ...
    @property
    def checkpoints(self) -> CheckpointsView: ...
    @property
    def dialogs(self) -> DialogsView: ...
    @property
    def extensions(self) -> ExtensionsView | None: ...
    @property
    def lsp(self) -> LspView: ...
    @property
    def goals(self) -> GoalsView: ...
    @property
    def schedules(self) -> SchedulesView: ...

    def subscribe(self, listener: Listener) -> Callable[[], None]: ...
    def notify(self, text: str, level: Literal["info", "warning", "error"] = "info") -> None: ...
    def submit(
        self, text: str, intent: Intent = "auto", images: list[ImageContent] | None = None
    ) -> asyncio.Future[CommandResult | None]: ...
    def answer(self, request_id: str, answer: object) -> bool: ...
    def abort(self) -> None: ...
    def queued(self) -> list[QueuedInput]: ...
    def take_queued(self) -> list[QueuedInput]: ...
    async def wait_idle(self) -> None: ...
    async def aclose(self) -> None: ...
    def describe_call(self, tool_name: str, args: object) -> str: ...
    def context_usage(self) -> tuple[int, int]: ...
    def served_sources(self) -> list[ServedSource]: ...
    def tree_entries(self) -> list[TreeEntry]: ...
    def navigate_to(self, entry_id: str) -> str | None: ...
