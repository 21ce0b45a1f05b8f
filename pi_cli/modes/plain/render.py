"""Rich output of shell events into the terminal's normal scrollback (no live regions).

Everything is printed once, when it is complete: a text block at ``text_end`` (as Markdown), a
tool call at ``tool_execution_start`` and its truncated result at ``tool_execution_end``. That is
what keeps native scrollback and search intact and avoids flicker.
"""

from __future__ import annotations

import json
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
from pi_cli.shell import (
    AutoRetryEnd,
    AutoRetryStart,
    BackgroundShellsChanged,
    BudgetExceeded,
    CompactionEnd,
    CompactionStart,
    McpStatusChanged,
    ModelChanged,
    Notice,
    PermissionModeChanged,
    PermissionRequested,
    PermissionResolved,
    QueueChanged,
    QueueReturned,
    SessionChanged,
    ShellEvent,
    ShellStateChanged,
    StructuredOutput,
    SubagentEnded,
    SubagentEvent,
    SubagentStarted,
    TodoUpdated,
    clean,
    redact,
)

if TYPE_CHECKING:
    from pi_cli.shell import CodingAgent

RESULT_LINES = 8
LINE_CHARS = 160
ARGS_CHARS = 200
_LEVEL_STYLE = {"info": "dim", "warning": "yellow", "error": "bold red"}


def brief_args(name: str, args: Any) -> str:
    """The most telling argument of a tool call (``package.json`` for read, the command for bash)."""
    if isinstance(args, dict):
        keys = [k for k in ("command", "path", "file_path", "pattern", "query", "url") if k in args]
        keys += [
            k for k, v in args.items() if isinstance(v, str | int | float)
        ]  # else: first scalar
        if keys:
            return clip(str(args[keys[0]]).replace("\n", " "), 80)
    return ""


def format_args(args: Any) -> str:
    """Arguments as compact ``key=value`` pairs, one line, clipped."""
    if isinstance(args, dict):
        parts = []
        for key, value in args.items():
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            parts.append(f"{key}={shown}")
        text = "  ".join(parts)
    else:
        text = "" if args is None else json.dumps(args, ensure_ascii=False)
    first, *rest = text.splitlines() or [""]
    return clip(first + (" …" if rest else ""), ARGS_CHARS)


def safe(text: str) -> str:
    """Model, tool or file text made safe to print (no control sequences, no keys)."""
    return clean(redact(text))


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def truncate_result(text: str, max_lines: int = RESULT_LINES) -> tuple[list[str], int]:
    """(the first ``max_lines`` lines, each clipped; how many lines were left out)."""
    lines = text.rstrip("\n").splitlines()
    return [clip(line, LINE_CHARS) for line in lines[:max_lines]], max(0, len(lines) - max_lines)


def _short(count: int) -> str:
    if count >= 10_000:
        return f"{count // 1000}k"
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


class PlainRenderer:
    """Shell event listener printing to a rich console.

    Args:
        console: where to print (``sys.stdout`` under ``patch_stdout`` in the REPL).
        shell: the CodingAgent, for usage and context numbers.
        on_change: called when something shown in the prompt area changed (queue, turn, state).
    """

    def __init__(
        self, console: Console, shell: CodingAgent, on_change: Callable[[], None] | None = None
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
        self.agents = AgentRenderer(console, shell.describe_call)  # todos, sub-agents

    # ------------------------------------------------------------------ dispatch

    def __call__(self, event: ShellEvent) -> None:  # noqa: C901, PLR0912 - one case per event type: the match is exhaustive (assert_never)
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
            ):
                self.on_change()  # the toolbar: queue, state, background shells; MCP news are notices
            case TurnEnd() | ToolExecutionUpdate() | SessionChanged() | ModelChanged():
                pass
            case QueueReturned():
                pass  # the REPL puts the texts back into the input line
            case PermissionRequested():
                self._on_permission_requested(event)
            case PermissionResolved():
                self._on_permission_resolved(event)
            case PermissionModeChanged(mode=mode):
                self.console.print(Text(f"permission mode: {mode}", style="cyan"))
                self.on_change()
            case (
                TodoUpdated()
                | SubagentStarted()
                | SubagentEvent()
                | SubagentEnded()
                | BudgetExceeded()
                | StructuredOutput()
            ):
                self.agents(event)
            case _:
                assert_never(event)

    def _on_agent_start(self, event: AgentStart) -> None:
        self.turn, self._users_in_run, self._started = 0, 0, time.monotonic()

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
            if self._users_in_run > 1:  # a steer or follow-up reached the model
                self.console.print(
                    Text(f"» delivered: {clip(safe(message.text), 200)}", style="cyan")
                )
            self.on_change()

    def _on_message_update(self, event: MessageUpdate) -> None:
        sub = event.assistant_message_event
        if isinstance(sub, TextEnd):
            if sub.content.strip():
                self._header()
                self.console.print(Markdown(safe(sub.content)))
        elif isinstance(sub, ThinkingEnd):
            lines, more = truncate_result(safe(sub.content), 4)
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
        line = Text("▸ ", style="magenta")
        line.append(safe(event.tool_name), style="bold magenta")
        args = safe(format_args(event.args))
        if args:
            line.append("  " + args, style="magenta")
        self.console.print(line)

    def _on_tool_execution_end(self, event: ToolExecutionEnd) -> None:
        lines, more = truncate_result(safe(event.result.text))
        style = "red" if event.is_error else "dim"
        if not lines:
            lines = ["(error)" if event.is_error else "(no output)"]
        body = "\n".join("  " + line for line in lines)
        if more:
            body += f"\n  … (+{more} lines)"
        self.console.print(Text(body, style=style))

    def _on_agent_end(self, event: AgentEnd) -> None:
        self.console.print(Text(self.summary(event.messages), style="dim"))
        used, window = self.shell.context_usage()
        self.context_text = f"context {100 * used / max(window, 1):.0f}% of {_short(window)}"
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
                    f"compacted {_short(event.tokens_before)} → {_short(event.tokens_after)} tokens",
                    style="dim",
                )
            )

    def _on_permission_requested(self, event: PermissionRequested) -> None:
        if event.question:  # its own question (a plan to approve)
            head = Text(f"⚠ {safe(event.question)}", style="bold yellow")
        else:
            head = Text("⚠ permission needed: ", style="bold yellow")
            head.append(safe(f"{event.tool_name} {event.title}".strip()), style="bold")
        self.console.print(head)
        self.console.print(Text(f"  {safe(event.reason)}", style="yellow"))
        lines, more = truncate_result(safe(event.preview), 40)
        if lines and event.tool_name != "bash":
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
        return clip(self.shell.describe_call(name, args) or brief_args(name, args), 80)

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
        """The one-line usage/cost summary of a run."""
        tokens_in = tokens_out = cache = 0
        cost = 0.0
        for message in messages:
            if isinstance(message, AssistantMessage):
                tokens_in += message.usage.input
                tokens_out += message.usage.output
                cache += message.usage.cache_read
                cost += message.usage.cost.total
        elapsed = time.monotonic() - self._started if self._started else 0.0
        turns = f"{self.turn} turn{'s' if self.turn != 1 else ''}"
        cached = f" (cache {_short(cache)})" if cache else ""
        return (
            f"· {turns} · ↑{_short(tokens_in)} ↓{_short(tokens_out)} tokens{cached} · ${cost:.4f}"
            f" · {self.shell.model_id} · {elapsed:.1f}s"
        )
