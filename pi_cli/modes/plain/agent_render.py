"""The plain REPL's lines for the agent tools (the todo list, sub-agents, budgets, schema) and
for goals (each round's verdict, the goal's status when it changes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, assert_never

from rich.console import Console
from rich.text import Text

from agent_core import MessageEnd, ToolExecutionEnd, ToolExecutionStart
from pi_cli.shell import (
    AgentToolEvent,
    BackgroundAgentChanged,
    BudgetExceeded,
    GoalChanged,
    GoalChecked,
    StructuredOutput,
    SubagentEnded,
    SubagentEvent,
    SubagentStarted,
    TodoUpdated,
    clean,
    redact,
    subagent_summary,
)

_MARKS = {"completed": ("✓", "green"), "in_progress": ("▸", "bold yellow"), "pending": ("○", "")}


def safe(text: str) -> str:
    """Printable: no control sequences, no keys."""
    return clean(redact(text))


def todo_lines(items: list[dict[str, Any]]) -> list[Text]:
    """``Todo 1/3`` and one line per item (wire dicts: content, status, activeForm)."""
    done = sum(1 for item in items if item.get("status") == "completed")
    lines = [Text(f"Todo {done}/{len(items)}", style="bold blue")]
    for item in items:
        status = str(item.get("status"))
        mark, style = _MARKS.get(status, ("·", ""))
        text = item.get("activeForm") if status == "in_progress" else None
        lines.append(Text(f"  {mark} {safe(str(text or item.get('content', '')))}", style=style))
    return lines


class AgentRenderer:
    """Prints the agent tools' events (``describe``: the shell's tool titles)."""

    def __init__(self, console: Console, describe: Callable[[str, Any], str]) -> None:
        self.console = console
        self.describe = describe
        self._goal_status: tuple[str, str] | None = None  # the goal's last status line shown

    def show_todos(self, items: list[dict[str, Any]]) -> None:
        """Print the list (nothing when it is empty)."""
        if items:
            for line in todo_lines(items):
                self.console.print(line)

    def __call__(self, event: AgentToolEvent) -> None:
        match event:
            case TodoUpdated(todos=todos):
                items = [t.model_dump(by_alias=True, exclude_none=True) for t in todos]
                if items:
                    self.show_todos(items)
                else:
                    self.console.print(Text("Todo list cleared", style="dim"))
            case SubagentStarted():
                what = f": {event.description}" if event.description else ""
                line = f"⤷ sub-agent {event.agent}{what} ({event.model})"
                self.console.print(Text(safe(line), style="magenta"))
            case SubagentEvent(agent=agent, event=inner):
                self._child(agent, inner)
            case SubagentEnded():
                if event.error_message:
                    line, style = f"⤷ {event.agent} failed: {event.error_message}", "red"
                else:
                    line, style = f"⤷ {event.agent} done · {subagent_summary(event)}", "dim magenta"
                self.console.print(Text(safe(line), style=style))
            case BackgroundAgentChanged():
                pass  # the toolbar counts the running ones; start and end are printed above
            case BudgetExceeded(message=message):
                self.console.print(Text(safe(message), style="bold yellow"))
            case StructuredOutput(valid=valid, errors=errors):
                text = "answer matches the schema" if valid else "; ".join(errors)
                self.console.print(Text(safe(text), style="dim" if valid else "red"))
            case _:
                assert_never(event)

    def goal(self, event: GoalChecked | GoalChanged) -> None:
        """A round's verdict; the goal's status when it leaves ``pursuing`` (or changes)."""
        if isinstance(event, GoalChecked):
            self.console.print(Text(safe(event.line()), style="green" if event.met else "yellow"))
            return
        goal = event.goal
        if goal is not None and goal.checking:
            return
        status = (goal.status, goal.reason) if goal is not None else None
        if goal is not None and status != self._goal_status and goal.status != "pursuing":
            style = {"met": "bold green", "paused": "yellow"}.get(goal.status, "bold red")
            self.console.print(Text(safe(goal.line()), style=style))
        self._goal_status = status

    def _child(self, agent: str, inner: Any) -> None:
        """A sub-agent's tool calls and failures, indented under it."""
        if isinstance(inner, ToolExecutionStart):
            title = self.describe(inner.tool_name, inner.args)
            line = f"  ⤷ {agent} ▸ {inner.tool_name} {title}".rstrip()
            self.console.print(Text(safe(line)[:200], style="magenta"))
        elif isinstance(inner, ToolExecutionEnd) and inner.is_error:
            first = inner.result.text.strip().splitlines()[:1]
            line = f"    ✗ {first[0] if first else 'failed'}"
            self.console.print(Text(safe(line)[:200], style="red"))
        elif isinstance(inner, MessageEnd) and getattr(inner.message, "stop_reason", "") == "error":
            why = getattr(inner.message, "error_message", None) or "the model call failed"
            self.console.print(Text(safe(f"  ⤷ {agent} error: {why}"), style="red"))


def long_running_text(shell: Any) -> str:
    """The toolbar's goal and loops: `` · goal pursuing 2/20: … (/goal) · ⏲ 1 loop · next 08:35
    (/loop)`` (``""`` when there is neither)."""
    goal = shell.goals.event().goal
    text = f" · {clean(goal.short())} (/goal)" if goal is not None else ""
    loops = shell.schedules.event().short()
    return text + (f" · {clean(loops)} (/loop)" if loops else "")


def background_work(shell: Any) -> str:
    """The toolbar's part for what runs in the background: shells, monitors, sub-agents."""
    infos = shell.sandbox.shells.infos()
    watching = sum(i.state == "running" and bool(i.monitor) for i in infos)
    running = shell.sandbox.shells.running - watching
    text = f" · {running} background shell{'s' * (running > 1)} (/bashes)" if running else ""
    text += f" · ◉ {watching} monitor{'s' * (watching > 1)} (/monitors)" if watching else ""
    if agents := shell.agent_tools.running_agents:
        text += f" · {agents} background agent{'s' * (agents > 1)} (/agents)"
    return text
