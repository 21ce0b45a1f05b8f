"""One ACP session: shell events as ``session/update`` notifications, approvals as
``session/request_permission``, in the order they happened.

Every :data:`~pi_cli.shell.events.ShellEvent` is handled here (``match`` + ``assert_never``).
Updates are queued and sent by one task per session, so the client sees them in order; a
prompt's response waits until its updates are out (:meth:`AcpSession.flush`).

Plans: the todo list (``todo_updated``) is sent as ACP ``plan`` updates (:func:`plan_update`);
sub-agents show inside their ``task`` tool call; budgets and structured output end the turn.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, assert_never

from agent_core import (
    AgentEnd,
    AgentStart,
    ImageContent,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    TextDelta,
    ThinkingDelta,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
)
from pi_cli.modes.acp import dialogs
from pi_cli.modes.acp.sdk import helpers, schema
from pi_cli.shell import (
    AutoRetryEnd,
    AutoRetryStart,
    BackgroundAgentChanged,
    BackgroundShellsChanged,
    BudgetExceeded,
    CompactionEnd,
    CompactionStart,
    CustomMessageShown,
    DiagnosticsReported,
    DialogRequested,
    DialogResolved,
    GoalChanged,
    GoalChecked,
    LspStatusChanged,
    McpStatusChanged,
    ModelChanged,
    MonitorDelivered,
    Notice,
    PermissionModeChanged,
    PermissionRequested,
    PermissionResolved,
    QueueChanged,
    QueueReturned,
    Reloaded,
    ScheduleFired,
    SchedulesChanged,
    SessionChanged,
    ShellEvent,
    ShellStateChanged,
    StructuredOutput,
    SubagentEnded,
    SubagentEvent,
    SubagentStarted,
    TodoUpdated,
    UiChanged,
    redact,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent_core import Tool
    from pi_cli.shell import FrontShell

    class AcpShell(FrontShell, Protocol):
        """What an ACP session drives: a front end's shell (local, or in ``pi serve``)."""

        @property
        def tools(self) -> Sequence[Tool]: ...
        @property
        def run_aborted(self) -> bool: ...


KINDS: dict[str, ToolKind] = {
    "read": "read",
    "edit": "edit",
    "write": "edit",
    "bash": "execute",
    "grep": "search",
    "find": "search",
    "ls": "search",
    "web_fetch": "fetch",
    "todo": "think",
}
OptionKind = Literal["allow_once", "allow_always", "reject_once", "reject_always"]
_OPTION_KINDS: dict[str, tuple[OptionKind, str]] = {
    "allow_once": ("allow_once", "Allow once"),
    "allow_session": ("allow_always", "Allow for this session"),
    "allow_always": ("allow_always", "Always allow (saved as a rule)"),
    "deny": ("reject_once", "Deny"),
}


ToolKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]


def available_commands(shell: AcpShell) -> list[schema.AvailableCommand]:
    """The shell's slash commands as ACP's available commands."""
    return [
        schema.AvailableCommand(
            name=command.name,
            description=command.description or command.name,
            input=schema.AvailableCommandInput(
                root=schema.UnstructuredCommandInput(hint=command.usage)
            )
            if command.usage
            else None,
        )
        for command in shell.commands.visible()
    ]


def tool_kind(name: str) -> ToolKind:
    """The ACP tool kind of a pi tool (MCP and unknown tools: ``other``)."""
    return KINDS.get(name, "other")


def plan_update(entries: Iterable[tuple[str, str, str]]) -> schema.AgentPlanUpdate:
    """(content, status, priority) items as an ACP plan (statuses: pending, in_progress,
    completed; priorities: high, medium, low)."""
    return helpers.update_plan(
        helpers.plan_entry(content, priority=priority, status=status)  # type: ignore[arg-type]
        for content, status, priority in entries
    )


class AcpSession:
    """One pi shell driven by one ACP session of one client connection."""

    def __init__(self, session_id: str, shell: AcpShell, conn: Any) -> None:
        self.session_id = session_id
        self.shell = shell
        self.conn = conn
        self.queue: asyncio.Queue[Callable[[], Awaitable[None]] | None] = asyncio.Queue()
        self.sender = asyncio.ensure_future(self._send_all())
        self.asking: dict[str, asyncio.Task[None]] = {}
        self._before: dict[str, str | None] = {}  # old text of files an edit or write changes
        self.models: list[str] = []  # the model choices, once known
        self.background: set[asyncio.Future[Any]] = set()
        self.unsubscribe = shell.subscribe(self.on_event)

    # ------------------------------------------------------------------ sending

    def update(self, update: Any) -> None:
        """Queue one ``session/update`` notification."""
        self.queue.put_nowait(lambda: self.conn.session_update(self.session_id, update))

    async def _send_all(self) -> None:
        while (item := await self.queue.get()) is not None:
            try:
                await item()
            except Exception:  # noqa: BLE001 - a closed client must not stop the session
                pass
            finally:
                self.queue.task_done()
        self.queue.task_done()

    async def flush(self) -> None:
        """Wait until every queued update has been sent."""
        await self.queue.join()

    async def close(self) -> None:
        """Stop sending and detach from the shell."""
        self.unsubscribe()
        for task in [*self.asking.values(), *self.background]:
            task.cancel()
        self.queue.put_nowait(None)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.sender, 2.0)

    # ------------------------------------------------------------------ events

    def on_event(self, event: ShellEvent) -> None:  # noqa: C901, PLR0912 - one case per event type: the match is exhaustive (assert_never)
        """Turn one shell event into updates (or nothing)."""
        match event:
            case MessageUpdate(assistant_message_event=TextDelta(delta=delta)):
                self.update(helpers.update_agent_message_text(redact(delta)))
            case MessageUpdate(assistant_message_event=ThinkingDelta(delta=delta)):
                self.update(helpers.update_agent_thought_text(redact(delta)))
            case MessageUpdate():
                pass
            case ToolExecutionStart():
                self._tool_started(event)
            case ToolExecutionUpdate(tool_call_id=call_id, partial_result=partial):
                text = redact(partial.text)[-4000:]
                content = [helpers.tool_content(helpers.text_block(text))] if text else None
                self.update(
                    helpers.update_tool_call(call_id, status="in_progress", content=content)
                )
            case ToolExecutionEnd():
                self._tool_ended(event)
            case PermissionRequested():
                self._ask(event)
            case DialogRequested():
                self._ask_dialog(event)
            case Reloaded():
                self.update(helpers.update_available_commands(available_commands(self.shell)))
            case PermissionResolved(id=request_id) | DialogResolved(id=request_id):
                task = self.asking.pop(request_id, None)
                if task is not None and not task.done():
                    task.cancel()  # decided elsewhere (a hook, a time-out, an abort)
            case PermissionModeChanged(mode=mode):
                self.update(helpers.update_current_mode(mode))
            case TodoUpdated(todos=todos):
                self.update(plan_update((redact(t.content), t.status, "medium") for t in todos))
            case GoalChecked() | ScheduleFired():
                self.update(helpers.update_agent_thought_text(f"\n[pi] {redact(event.line())}\n"))
            case GoalChanged(goal=goal) if goal is not None and goal.status != "pursuing":
                self.update(helpers.update_agent_thought_text(f"\n[pi] {redact(goal.line())}\n"))
            case BudgetExceeded(message=message):
                self.update(helpers.update_agent_thought_text(f"\n[pi] {redact(message)}\n"))
            case Notice(level="warning" | "error", text=text):
                self.update(helpers.update_agent_thought_text(f"\n[pi] {redact(text)}\n"))
            case AutoRetryStart():
                note = f"\n[pi] retrying ({event.attempt}/{event.max_attempts}): {event.error_message}\n"
                self.update(helpers.update_agent_thought_text(redact(note)))
            case (
                Notice()
                | AgentStart()
                | AgentEnd()
                | TurnStart()
                | TurnEnd()
                | MessageStart()
                | MessageEnd()
                | AutoRetryEnd()
                | CompactionStart()
                | CompactionEnd()
                | SessionChanged()
                | ModelChanged()
                | QueueChanged()
                | QueueReturned()
                | ShellStateChanged()
                | McpStatusChanged()
                | LspStatusChanged()
                | DiagnosticsReported()  # in the tool call's content: the result text names them
                | BackgroundShellsChanged()
                | SubagentStarted()
                | SubagentEvent()
                | SubagentEnded()
                | BackgroundAgentChanged()
                | StructuredOutput()
                | UiChanged()
                | CustomMessageShown()  # an extension's transcript message: the TUI's and REPL's
                | GoalChanged()
                | SchedulesChanged()
                | MonitorDelivered()  # the lines reach the model with the client's turns
            ):
                pass  # nothing an ACP client shows (the prompt's response ends the turn)
            case _:
                assert_never(event)

    def _locations(self, name: str, args: Any) -> list[schema.ToolCallLocation]:
        tool = next((t for t in self.shell.tools if t.name == name), None)
        if tool is None or not isinstance(args, dict):
            return []
        try:
            effects = tool.file_effects(args)
        except Exception:  # noqa: BLE001 - a partial or odd call shows no location
            return []
        line = args.get("offset") if isinstance(args.get("offset"), int) else None
        return [schema.ToolCallLocation(path=str(self._path(e.path)), line=line) for e in effects]

    def _path(self, raw: str) -> Path:
        path = Path(raw.removeprefix("@")).expanduser()
        return path if path.is_absolute() else self.shell.cwd / path

    def _tool_started(self, event: ToolExecutionStart) -> None:
        name, args = event.tool_name, event.args
        if name in ("edit", "write") and isinstance(args.get("path"), str):
            path = self._path(args["path"])
            try:
                self._before[event.tool_call_id] = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                self._before[event.tool_call_id] = None
        self.update(
            helpers.start_tool_call(
                event.tool_call_id,
                redact(self.shell.describe_call(name, args) or name),
                kind=tool_kind(name),
                status="pending",
                locations=self._locations(name, args),
                raw_input=args,
            )
        )

    def _tool_ended(self, event: ToolExecutionEnd) -> None:
        result = event.result
        content: list[Any] = []
        before = self._before.pop(event.tool_call_id, "") if not event.is_error else None
        details = result.details if isinstance(result.details, dict) else {}
        if before != "" and not event.is_error and isinstance(details.get("path"), str):
            path = self._path(details["path"])
            try:
                after = path.read_text(encoding="utf-8")
                content.append(helpers.tool_diff_content(str(path), after, before))
            except (OSError, UnicodeDecodeError):
                pass
        text = redact(result.text)
        if text:
            content.append(helpers.tool_content(helpers.text_block(text)))
        for block in result.content:
            if isinstance(block, ImageContent):
                content.append(
                    helpers.tool_content(helpers.image_block(block.data, block.mime_type))
                )
        self.update(
            helpers.update_tool_call(
                event.tool_call_id,
                status="failed" if event.is_error else "completed",
                content=content or None,
                raw_output={"text": text, "isError": event.is_error},
            )
        )

    # ------------------------------------------------------------------ approvals

    def _ask(self, request: PermissionRequested) -> None:
        options = [
            schema.PermissionOption(
                option_id=choice, name=_OPTION_KINDS[choice][1], kind=_OPTION_KINDS[choice][0]
            )
            for choice in request.options
        ]
        call = helpers.update_tool_call(
            request.tool_call_id,
            title=redact(f"{request.title or request.tool_name} — {request.reason}"),
            status="pending",
        )

        async def ask() -> None:
            try:
                response = await self.conn.request_permission(
                    session_id=self.session_id, tool_call=call, options=options
                )
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - a client that cannot answer denies
                self.shell.answer(request.id, "deny")
                return
            outcome = response.outcome
            chosen = getattr(outcome, "option_id", None)
            choice = chosen if chosen in request.options else "deny"
            with contextlib.suppress(ValueError):
                self.shell.answer(request.id, choice)

        async def start() -> None:
            self.asking[request.id] = asyncio.ensure_future(ask())
            await asyncio.sleep(0)  # the request goes out before later updates

        self.queue.put_nowait(start)

    def _ask_dialog(self, request: DialogRequested) -> None:
        if not dialogs.can_ask(request):
            note = f"\n[pi] {request.title}: ACP cannot carry this question; it was cancelled\n"
            self.update(helpers.update_agent_thought_text(redact(note)))
            with contextlib.suppress(ValueError):
                self.shell.answer(request.id, {"cancelled": True})
            return

        async def start() -> None:
            asking = dialogs.ask(self.conn, self.session_id, self.shell, request)
            self.asking[request.id] = asyncio.ensure_future(asking)
            await asyncio.sleep(0)  # the request goes out before later updates

        self.queue.put_nowait(start)

    def cancel_approvals(self) -> None:
        """``session/cancel``: withdraw every question still open (they are denied)."""
        for request_id, task in list(self.asking.items()):
            task.cancel()
            cancelled = {"cancelled": True} if self.shell.dialogs.knows(request_id) else "deny"
            with contextlib.suppress(ValueError):
                self.shell.answer(request_id, cancelled)
        self.asking.clear()
