"""Rich output of shell events into the terminal's normal scrollback (no live regions).

Everything is printed once, when it is complete: a text block at ``text_end`` (as Markdown), a
tool call at ``tool_execution_start`` and its truncated result at ``tool_execution_end``. That is
what keeps native scrollback and search intact and avoids flicker.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, assert_never

from rich.console import Console
from rich.markdown import Markdown
from rich.text import Text

from agent_core import (
    AgentEnd,
    AgentStart,
    AssistantMessage,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    TextEnd,
    ThinkingEnd,
    ToolCallEnd,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
    UserMessage,
)
from pi_cli.modes.plain.agent_render import AgentRenderer
from pi_cli.modes.plain.tool_render import (
    call_line,
    call_title,
    clip,
    diagnostics_summary,
    diff_text,
    head,
    print_unpadded,
    result_text,
    safe,
)
from pi_cli.modes.plain.ui_render import PlainUi
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
    SessionUsage,
    ShellEvent,
    ShellStateChanged,
    StructuredOutput,
    SubagentEnded,
    SubagentEvent,
    SubagentStarted,
    TodoUpdated,
    UiChanged,
    cache_hit_rate,
    format_cost,
    short_tokens,
)

if TYPE_CHECKING:
    from pi_cli.shell import FrontShell

PREVIEW_LINES = 4  # a thinking block: its first lines
_LEVEL_STYLE = {"info": "dim", "warning": "yellow", "error": "bold red"}


class PlainRenderer:
    """Shell event listener printing to a rich console.

    Args:
        console: where to print (``sys.stdout``, written above the input line in the REPL).
        shell: the shell, for usage and context numbers.
        on_change: called when something shown in the prompt area changed (queue, turn, state).
    """

    def __init__(
        self, console: Console, shell: FrontShell, on_change: Callable[[], None] | None = None
    ) -> None:
        self.console = console
        self.shell = shell
        self.on_change = on_change or (lambda: None)
        self.turn = 0
        self.context_text = ""
        self._header_done = False
        self._turn_tools: list[tuple[str, Any]] = []
        self._users_in_run = 0
        self._started = 0.0
        self._run_first_turn = 0
        self._calls: dict[str, tuple[str, float]] = {}  # running calls: title, start
        self._last_call: str | None = None  # the call whose line was printed last
        self.agents = AgentRenderer(console, shell.describe_call)  # todos, sub-agents
        self.ui = PlainUi(console, self.on_change, shell)  # dialogs' outcomes, extension UI
        for piece in shell.dialogs.ui_state():  # set while the shell was built
            self.ui(piece)

    # ------------------------------------------------------------------ dispatch

    def __call__(self, event: ShellEvent) -> None:  # noqa: C901, PLR0912, PLR0915 - one case per event type: the match is exhaustive (assert_never)
        match event:
            case AgentStart():
                self._on_agent_start(event)
            case TurnStart():
                self._on_turn_start(event)
            case MessageStart():
                self._on_message_start(event)
            case MessageUpdate():
                self._on_message_update(event)
            case MessageEnd():
                self._on_message_end(event)
            case ToolExecutionStart():
                self._on_tool_execution_start(event)
            case ToolExecutionEnd():
                self._on_tool_execution_end(event)
            case AgentEnd():
                self._on_agent_end(event)
            case Notice():
                self._on_notice(event)
            case AutoRetryStart():
                self._on_auto_retry_start(event)
            case AutoRetryEnd():
                self._on_auto_retry_end(event)
            case CompactionStart():
                self._on_compaction_start(event)
            case CompactionEnd():
                self._on_compaction_end(event)
            case (
                QueueChanged()
                | ShellStateChanged()
                | BackgroundShellsChanged()
                | McpStatusChanged()
                | LspStatusChanged()
            ):
                self.on_change()  # the toolbar: queue, state, background shells, servers (news: notices)
            case DiagnosticsReported(files=files):
                for line in diagnostics_summary(files):  # the problems: in or under the result
                    self.console.print(line)
            case TurnEnd() | ToolExecutionUpdate() | SessionChanged() | ModelChanged():
                pass
            case QueueReturned() | MonitorDelivered():
                pass  # the REPL puts the texts back; a monitor's lines print as the model gets them
            case PermissionRequested():
                self._on_permission_requested(event)
            case PermissionResolved():
                self._on_permission_resolved(event)
            case PermissionModeChanged(mode=mode):
                self.console.print(Text(f"permission mode: {mode}", style="cyan"))
                self.on_change()
            case GoalChecked() | GoalChanged():
                self.agents.goal(event)
                self.on_change()  # the toolbar shows the goal
            case BackgroundAgentChanged():
                self.on_change()  # the toolbar counts the running ones
            case (
                TodoUpdated()
                | SubagentStarted()
                | SubagentEvent()
                | SubagentEnded()
                | BudgetExceeded()
                | StructuredOutput()
            ):
                self.agents(event)
            case DialogRequested() | DialogResolved() | UiChanged() | CustomMessageShown():
                self.ui(event)
            case ScheduleFired():
                self.console.print(Text(safe(event.line()), style="cyan"))
            case Reloaded() | SchedulesChanged():
                self.on_change()  # the toolbar (loops); the REPL re-reads extensions' keys itself
            case _:
                assert_never(event)

    def _on_agent_start(self, event: AgentStart) -> None:
        # Turns are numbered across the session; a run's summary counts its own.
        self._run_first_turn, self._users_in_run, self._started = self.turn, 0, time.monotonic()

    def _on_turn_start(self, event: TurnStart) -> None:
        # Emitted exactly once per turn (SPEC §3 first_turn), so counting them numbers turns.
        self.turn += 1
        self._header_done = False
        self._turn_tools = []
        self.on_change()

    def _on_message_start(self, event: MessageStart) -> None:
        message = event.message
        if isinstance(message, UserMessage):
            self._users_in_run += 1
            if message.text.startswith("[monitor "):  # a monitor's lines reached the model
                header, _, lines = safe(message.text).partition("\n")
                self.console.print(Text(f"◉ {header.removeprefix('[monitor ')}", style="yellow"))
                if lines:
                    self.console.print(Text(lines, style="dim"))
            elif self._users_in_run > 1:  # a steer or follow-up reached the model
                self.console.print(
                    Text(f"» delivered: {clip(safe(message.text), 200)}", style="cyan")
                )
            self.on_change()

    def _on_message_update(self, event: MessageUpdate) -> None:
        sub = event.assistant_message_event
        if isinstance(sub, TextEnd):
            if sub.content.strip():
                self._header()
                print_unpadded(self.console, Markdown(safe(sub.content)))
                self._last_call = None
        elif isinstance(sub, ThinkingEnd):
            lines, more = head(safe(sub.content), PREVIEW_LINES)
            if lines:
                self._header()
                tail = f"\n… (+{more} lines)" if more else ""
                self.console.print(Text("\n".join(lines) + tail, style="dim italic"))
        elif isinstance(sub, ToolCallEnd):
            self._turn_tools.append((sub.tool_call.name, sub.tool_call.arguments))

    def _on_message_end(self, event: MessageEnd) -> None:
        message = event.message
        if not isinstance(message, AssistantMessage):
            return
        if message.stop_reason == "error":
            self._header()
            self.console.print(
                Text(
                    f"error: {safe(message.error_message or 'the model call failed')}",
                    style="bold red",
                )
            )
        elif message.stop_reason == "aborted":
            self._header()
            self.console.print(Text("aborted", style="yellow"))
        elif message.stop_reason == "refusal":
            self._header()
            why = f": {message.refusal}" if message.refusal else ""
            self.console.print(Text(f"the model refused to answer{why}", style="yellow"))
        elif message.stop_reason == "length":
            self._header()
            self.console.print(
                Text(
                    "cut at the model's output token limit (the answer is incomplete)",
                    style="yellow",
                )
            )

    def _on_tool_execution_start(self, event: ToolExecutionStart) -> None:
        if not self._turn_tools:
            self._turn_tools.append((event.tool_name, event.args))
        self._header()
        title = call_title(event.tool_name, event.args, self.shell.describe_call)
        self._calls[event.tool_call_id] = (title, time.monotonic())
        self.console.print(call_line(event.tool_name, title))
        self._last_call = event.tool_call_id

    def _on_tool_execution_end(self, event: ToolExecutionEnd) -> None:
        title, started = self._calls.pop(event.tool_call_id, ("", time.monotonic()))
        if self._last_call != event.tool_call_id:  # other output came between: say whose
            line = Text("◂ ", style="magenta")
            line.append(safe(event.tool_name), style="bold magenta")
            self.console.print(line.append(f" {title}".rstrip(), style="magenta"))
        result = event.result
        self.console.print(
            result_text(event.tool_name, result.text, event.is_error, result.details)
        )
        if event.is_error:
            elapsed = time.monotonic() - started
            self.console.print(
                Text(f"✗ {safe(event.tool_name)} failed · {elapsed:.1f}s", style="red")
            )
        self._last_call = None

    def _on_agent_end(self, event: AgentEnd) -> None:
        self.console.print(Text(self.summary(event.messages), style="dim"))
        used, window = self.shell.context_usage()
        size = f"{window // 1000}k" if window >= 1000 else str(window)
        rate = cache_hit_rate(self.shell.usage)
        cached = f" · cache {rate:.0%} hit" if rate is not None else ""
        self.context_text = f"context {100 * used / max(window, 1):.0f}% of {size}{cached}"
        self.on_change()

    def _on_notice(self, event: Notice) -> None:
        self.console.print(Text(safe(event.text), style=_LEVEL_STYLE.get(event.level, "")))

    def _on_auto_retry_start(self, event: AutoRetryStart) -> None:
        self.console.print(
            Text(
                f"retrying in {event.delay_ms / 1000:.1f}s (attempt {event.attempt}/{event.max_attempts}): "
                f"{safe(event.error_message)}",
                style="yellow",
            )
        )

    def _on_auto_retry_end(self, event: AutoRetryEnd) -> None:
        if not event.success:
            self.console.print(
                Text(f"retries exhausted: {safe(event.final_error or '')}", style="bold red")
            )

    def _on_compaction_start(self, event: CompactionStart) -> None:
        self.console.print(Text("compacting context…", style="dim"))

    def _on_compaction_end(self, event: CompactionEnd) -> None:
        if event.error_message:
            self.console.print(Text(f"compaction failed: {safe(event.error_message)}", style="red"))
        else:
            self.console.print(
                Text(
                    f"compacted {short_tokens(event.tokens_before)} → {short_tokens(event.tokens_after)} tokens",
                    style="dim",
                )
            )

    def _on_permission_requested(self, event: PermissionRequested) -> None:
        if event.question:  # its own question (a plan to approve)
            question = Text(f"⚠ {safe(event.question)}", style="bold yellow")
        else:
            question = Text("⚠ permission needed: ", style="bold yellow")
            question.append(safe(f"{event.tool_name} {event.title}".strip()), style="bold")
        self.console.print(question)
        self.console.print(Text(f"  {safe(event.reason)}", style="yellow"))
        if not event.preview.strip() or event.tool_name == "bash":
            return  # the command is the title
        if event.preview.startswith("--- ") or "\n@@ " in event.preview:
            self.console.print(diff_text(event.preview))
            return
        lines, more = head(safe(event.preview), 40)
        tail = f"\n  … (+{more} lines)" if more else ""
        self.console.print(Text("\n".join("  " + line for line in lines) + tail, style="dim"))

    def _on_permission_resolved(self, event: PermissionResolved) -> None:
        if event.by == "user":
            return  # the REPL echoes the user's own choice
        verdict = "allowed" if event.allowed else "denied"
        why = {"hook": "by a hook", "timeout": "(no answer in time)", "aborted": "(aborted)"}
        why["non_interactive"] = "(cannot ask here)"
        reason = f" {why.get(event.by, '')}{': ' + event.message if event.message else ''}"
        self.console.print(
            Text(f"  {verdict}{safe(reason)}", style="green" if event.allowed else "red")
        )

    # ------------------------------------------------------------------ pieces

    def _title(self, name: str, args: Any) -> str:
        """The tool's own one-line title of a call, clipped for a turn header."""
        return clip(call_title(name, args, self.shell.describe_call, brief=True), 80)

    def _header(self) -> None:
        if self._header_done:
            return
        self._header_done = True
        label = ", ".join(
            f"{name} {self._title(name, args)}".strip() for name, args in self._turn_tools[:3]
        )
        if len(self._turn_tools) > 3:
            label += f" +{len(self._turn_tools) - 3}"
        title = f"turn {self.turn}" + (f" · {label}" if label else "")
        self.console.print(Text(f"── {title} ──", style="bold blue"))

    def summary(self, messages: list[Any]) -> str:
        """The one-line usage/cost summary of a run (the footer's number formats)."""
        usage = SessionUsage.of(messages)
        elapsed = time.monotonic() - self._started if self._started else 0.0
        count = self.turn - self._run_first_turn
        turns = f"{count} turn{'s' if count != 1 else ''}"
        rate = cache_hit_rate(usage)
        cached = (
            f" (cache {short_tokens(usage.cache_read)} read, {rate:.0%} hit)"
            if usage.cache_read
            else ""
        )
        return (
            f"· {turns} · ↑{short_tokens(usage.input)} ↓{short_tokens(usage.output)} tokens"
            f"{cached} · {format_cost(usage.cost)} · {self.shell.model_id} · {elapsed:.1f}s"
        )
