"""Shell events, and :data:`ShellEvent`: everything a front end receives from the shell.

:data:`ShellEvent` is the agent_core events plus the shell's own. Front ends consume it with
``match`` and ``assert_never``, so a new event type fails type-checking until each handles it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Literal

from agent_core.events import (
    AgentEnd,
    AgentStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
)
from agent_core.messages import WireModel
from agent_core.records import field
from agent_core.stream import RetryNotice
from pi_cli.shell.events.agent_tools import (
    AGENT_TOOL_EVENT_TYPES,
    BackgroundAgentChanged,
    BudgetExceeded,
    StructuredOutput,
    SubagentEnded,
    SubagentEvent,
    SubagentStarted,
    TodoUpdated,
)
from pi_cli.shell.events.dialogs import (
    DIALOG_EVENT_TYPES,
    CustomMessageShown,
    DialogRequested,
    DialogResolved,
    UiChanged,
)
from pi_cli.shell.events.long_running import (
    LONG_RUNNING_EVENT_TYPES,
    GoalChanged,
    GoalChecked,
    MonitorDelivered,
    ScheduleFired,
    SchedulesChanged,
)
from pi_cli.shell.events.lsp import LSP_EVENT_TYPES, DiagnosticsReported, LspStatusChanged
from pi_cli.shell.events.lsp import Diagnostic as Diagnostic  # re-exported for front ends
from pi_cli.shell.events.lsp import FileDiagnostics as FileDiagnostics
from pi_cli.shell.events.lsp import LspServerStatus as LspServerStatus

ShellState = Literal["idle", "preparing", "running", "command", "compacting"]
"""What the shell is doing: ``preparing`` runs input hooks, ``running`` is a live model run
(its loop drains the steer and follow-up queues), ``command`` a slash command, ``compacting``
a summary request (manual, or after a run)."""

QueueKind = Literal["steer", "follow_up", "held"]
"""Where a queued input goes: ``steer`` into the live run's next turn, ``follow_up`` after the
run would stop, ``held`` typed while no model run could take it (a command, compaction), sent
as its own input once the shell is idle."""

CompactionReason = Literal["threshold", "overflow", "manual"]
SessionReason = Literal["new", "resume", "fork", "tree"]


class AutoRetryStart(WireModel, tag_field="type", tag="auto_retry_start"):
    """A transient provider error is being retried after ``delay_ms``."""

    type: ClassVar[str] = "auto_retry_start"
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str

    @classmethod
    def of(cls, notice: RetryNotice) -> AutoRetryStart:
        """The event for the provider layer's retry notice."""
        return cls(
            attempt=notice.attempt,
            max_attempts=notice.max_attempts,
            delay_ms=int(notice.delay_s * 1000),
            error_message=notice.error_message,
        )


class AutoRetryEnd(WireModel, tag_field="type", tag="auto_retry_end"):
    """A retried request finally succeeded or gave up."""

    type: ClassVar[str] = "auto_retry_end"
    success: bool
    attempt: int
    final_error: str | None = None


class CompactionStart(WireModel, tag_field="type", tag="compaction_start"):
    """Older messages are being summarised."""

    type: ClassVar[str] = "compaction_start"
    reason: CompactionReason


class CompactionEnd(WireModel, tag_field="type", tag="compaction_end"):
    """Compaction finished (or failed: ``error_message``)."""

    type: ClassVar[str] = "compaction_end"
    reason: CompactionReason
    summary: str | None = None
    first_kept_entry_id: str | None = None
    tokens_before: int = 0
    tokens_after: int = 0
    will_retry: bool = False
    aborted: bool = False
    error_message: str | None = None


class Notice(WireModel, tag_field="type", tag="notice", kw_only=True):
    """Something the user should read (warnings while loading, command output...)."""

    type: ClassVar[str] = "notice"
    level: Literal["info", "warning", "error"] = "info"
    text: str
    source: str | None = None
    """Who says it, when not pi itself (``extension protected-paths``: an extension's notify)."""


class SessionChanged(WireModel, tag_field="type", tag="session_changed"):
    """The shell switched to another session (``/new``, resume, fork, branch)."""

    type: ClassVar[str] = "session_changed"
    session_id: str
    path: str | None = None
    reason: SessionReason = "new"


class ModelChanged(WireModel, tag_field="type", tag="model_changed"):
    """The active model or thinking level changed."""

    type: ClassVar[str] = "model_changed"
    model: str
    thinking: str


class QueuedItem(WireModel):
    """One queued input, with an id that stays stable while it waits."""

    id: str
    text: str
    kind: QueueKind
    origin: str | None = None
    """None: typed by the user; ``agent:<id>``: a background sub-agent's report."""


class QueueChanged(WireModel, tag_field="type", tag="queue_changed"):
    """The input queue changed (added, delivered, edited, moved, removed): its whole content."""

    type: ClassVar[str] = "queue_changed"
    items: list[QueuedItem] = field(default_factory=list)


class QueueReturned(WireModel, tag_field="type", tag="queue_returned"):
    """A run was aborted or failed: what was still queued is handed back, not sent.

    Interactive front ends put the texts back into the editor; nothing is lost. ``restored``:
    texts still queued when this session last stopped (stored in it), offered back at start.
    """

    type: ClassVar[str] = "queue_returned"
    items: list[QueuedItem] = field(default_factory=list)
    reason: Literal["aborted", "error", "restored"] = "aborted"


class BackgroundShellItem(WireModel):
    """One background shell (``bash`` with ``background: true``)."""

    id: str
    command: str
    state: Literal["running", "exited", "killed", "lost"]
    exit_code: int | None = None
    pid: int | None = None
    started_at: float = 0.0
    sandboxed: bool = True
    monitor: str | None = None
    """A monitor's description (the ``monitor`` tool's shell)."""


class BackgroundShellsChanged(WireModel, tag_field="type", tag="background_shells"):
    """A background shell started, ended or was killed: the whole list."""

    type: ClassVar[str] = "background_shells"
    shells: list[BackgroundShellItem] = field(default_factory=list)

    @property
    def running(self) -> int:
        """How many still run (the TUI footer's indicator)."""
        return sum(shell.state == "running" for shell in self.shells)

    @classmethod
    def of(cls, infos: Sequence[Any]) -> BackgroundShellsChanged:
        """The event for the sandbox's shell snapshots (``tools.sandbox._background.ShellInfo``)."""
        return cls(
            shells=[
                BackgroundShellItem(
                    id=i.id,
                    command=i.command,
                    state=i.state,
                    exit_code=i.exit_code,
                    pid=i.pid,
                    started_at=i.started_at,
                    sandboxed=i.sandboxed,
                    monitor=i.monitor,
                )
                for i in infos
            ]
        )


class ShellStateChanged(WireModel, tag_field="type", tag="shell_state"):
    """The shell became busy or idle (see :data:`ShellState`)."""

    type: ClassVar[str] = "shell_state"
    state: ShellState


ApprovalChoice = Literal["allow_once", "allow_session", "allow_always", "deny"]
"""A user's answer to a :class:`PermissionRequested`."""


class PermissionRequested(WireModel, tag_field="type", tag="permission_requested"):
    """A tool call waits for the user's approval; answer with ``shell.answer(id, ...)``.

    ``options`` are the choices a front end offers (``allow_session``/``allow_always`` only when
    there is a rule to remember: ``rules``, in Claude Code syntax, for the project settings and
    the user settings). ``preview`` is what will happen: the full command, or a diff of the edit.
    """

    type: ClassVar[str] = "permission_requested"
    id: str
    tool_call_id: str
    tool_name: str
    args: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    reason: str = ""
    preview: str = ""
    options: list[ApprovalChoice] = field(default_factory=list)
    rules: dict[str, list[str]] = field(default_factory=dict)
    question: str | None = None
    """Asked instead of "Allow <tool>: <title>?" (a plan's "Approve this plan?")."""
    labels: dict[str, str] | None = None
    """Words for some options instead of the usual ones (a plan: "Approve, accept edits")."""
    agent: str | None = None
    """The sub-agent whose call this is (``background agent a1 (reviewer)``); None: the main
    agent's. The question then names it."""


class PermissionResolved(WireModel, tag_field="type", tag="permission_resolved"):
    """An approval was decided: by the user, a hook, a timeout, an abort, or nobody could ask.

    ``by``: ``user``, ``hook``, ``timeout``, ``aborted`` or ``non_interactive``.
    """

    type: ClassVar[str] = "permission_resolved"
    id: str
    allowed: bool
    by: Literal["user", "hook", "timeout", "aborted", "non_interactive"] = "user"
    choice: ApprovalChoice | None = None
    message: str = ""
    tool_name: str = ""
    title: str = ""


class PermissionModeChanged(WireModel, tag_field="type", tag="permission_mode_changed"):
    """The permission mode changed (``/permissions``, Shift+Tab, RPC)."""

    type: ClassVar[str] = "permission_mode_changed"
    mode: str


class Reloaded(WireModel, tag_field="type", tag="reloaded"):
    """``/reload`` read settings, skills, templates, agent profiles, extensions... again: what was
    read, one line each (front ends re-read commands and key bindings)."""

    type: ClassVar[str] = "reloaded"
    what: list[str] = field(default_factory=list)


class McpServerStatus(WireModel):
    """One MCP server: ``state`` is starting, ready, failed or stopped."""

    name: str
    state: str
    error: str | None = None
    tools: int = 0
    transport: str = "stdio"


class McpStatusChanged(WireModel, tag_field="type", tag="mcp_status"):
    """An MCP server became ready, failed or stopped: every server's state (footer, ``/mcp``)."""

    type: ClassVar[str] = "mcp_status"
    servers: list[McpServerStatus] = field(default_factory=list)


OwnEvent = (
    AutoRetryStart
    | AutoRetryEnd
    | CompactionStart
    | CompactionEnd
    | Notice
    | SessionChanged
    | ModelChanged
    | QueueChanged
    | QueueReturned
    | ShellStateChanged
    | PermissionRequested
    | PermissionResolved
    | PermissionModeChanged
    | BackgroundShellsChanged
    | McpStatusChanged
    | Reloaded
    | DialogRequested
    | DialogResolved
    | UiChanged
    | CustomMessageShown
    | LspStatusChanged
    | DiagnosticsReported
    | TodoUpdated
    | SubagentStarted
    | SubagentEvent
    | SubagentEnded
    | BackgroundAgentChanged
    | BudgetExceeded
    | StructuredOutput
    | GoalChanged
    | GoalChecked
    | SchedulesChanged
    | ScheduleFired
    | MonitorDelivered
)
"""The shell's own events (the agent tools' are in :mod:`pi_cli.shell.events.agent_tools`, long-running
work's in :mod:`pi_cli.shell.events.long_running`)."""

ShellEvent = (
    AgentStart
    | AgentEnd
    | TurnStart
    | TurnEnd
    | MessageStart
    | MessageUpdate
    | MessageEnd
    | ToolExecutionStart
    | ToolExecutionUpdate
    | ToolExecutionEnd
    | OwnEvent
)
"""Every event a front end receives: agent_core's and the shell's."""

SHELL_EVENT_TYPES: tuple[type[WireModel], ...] = (
    AutoRetryStart,
    AutoRetryEnd,
    CompactionStart,
    CompactionEnd,
    Notice,
    SessionChanged,
    ModelChanged,
    QueueChanged,
    QueueReturned,
    ShellStateChanged,
    PermissionRequested,
    PermissionResolved,
    PermissionModeChanged,
    BackgroundShellsChanged,
    McpStatusChanged,
    Reloaded,
    *DIALOG_EVENT_TYPES,
    *LSP_EVENT_TYPES,
    *AGENT_TOOL_EVENT_TYPES,
    *LONG_RUNNING_EVENT_TYPES,
)

Listener = Callable[[ShellEvent], None]
"""Receives every shell event, synchronously, in order; must not raise."""
