"""``/agents``: the background sub-agents, their threads, steering and stopping them.

``/agents`` lists them (status, turns, tokens, cost, last tool); ``/agents show ID`` prints one
thread (its prompt, answers, tool calls and results); ``/agents steer ID TEXT`` sends it a
message for its next turn; ``/agents abort ID`` (or ``all``) stops it. It runs while the
parent's run is live (it touches neither the parent's conversation nor its session).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_core import AssistantMessage, ToolResultMessage, UserMessage, first_line
from pi_cli.shell.agent_tools._background import AgentError, BackgroundAgents
from pi_cli.shell.commands import CommandResult, PickAction, ShellAPI, SlashCommand

if TYPE_CHECKING:
    from agent_core import Message
    from pi_cli.shell.events.agent_tools import BackgroundAgentInfo

RESULT_LINES = 12
"""Lines of each tool result ``/agents show`` prints (the rest is counted)."""
USAGE = "/agents [show ID | steer ID TEXT | abort ID|all]"


def agents_command(background: BackgroundAgents) -> SlashCommand:
    """The ``/agents`` command over ``background``."""

    async def handler(shell: ShellAPI, args: str) -> CommandResult:
        verb, _, rest = args.strip().partition(" ")
        target, _, text = rest.strip().partition(" ")
        try:
            if verb in ("", "list"):  # a TUI opens a picker for the bare command
                infos = background.infos()
                action: PickAction | None = "pick_agent" if infos and not verb else None
                return CommandResult(output=listing(infos), action=action)
            if verb == "show":
                child = background.get(target)
                return CommandResult(output=thread_text(child.info, child.transcript()))
            if verb == "steer":
                background.send(target, text)
                return CommandResult(output=f"Sent to {target}: it reads it at its next turn.")
            if verb in ("abort", "stop"):
                return CommandResult(output=_abort(background, target))
            if verb in background.children:  # "/agents a1": its thread
                child = background.get(verb)
                return CommandResult(output=thread_text(child.info, child.transcript()))
        except AgentError as exc:
            return CommandResult(output=str(exc), error=True)
        return CommandResult(output=f"Usage: {USAGE}", error=True)

    return SlashCommand(
        "agents",
        "Background sub-agents: list, show a thread, steer, abort",
        handler,
        usage=USAGE,
        while_running=True,
        complete=lambda typed: [
            (f"show {info.id}", f"{info.status}: {info.description}")
            for info in background.infos()
            if f"show {info.id}".startswith(typed)
        ],
    )


def _abort(background: BackgroundAgents, target: str) -> str:
    if target == "all":
        stopped = [c.info.id for c in background.children.values() if c.running]
        for child_id in stopped:
            background.abort(child_id)
        return f"Stopping {', '.join(stopped)}." if stopped else "No background agent is running."
    background.abort(target)
    return f"Stopping {target}: its parent will be told."


def status_line(info: BackgroundAgentInfo) -> str:
    """``a1  running  general-purpose: find the bug · 3 turns · ↑1200 ↓300 · $0.0123 · grep x``."""
    usage = info.usage
    tokens_in = int(usage.get("input", 0) + usage.get("cacheRead", 0))
    turns = f"{info.turns} turn{'s' if info.turns != 1 else ''}"
    parts = [
        f"{info.agent}: {info.description}" if info.description else info.agent,
        turns,
        f"↑{tokens_in} ↓{int(usage.get('output', 0))}",
        f"${usage.get('cost', 0.0):.4f}",
    ]
    if info.status == "running" and info.last_tool:
        parts.append(first_line(info.last_tool, 60))
    if info.error and info.status != "running":
        parts.append(first_line(info.error, 80))
    return f"{info.id:<4} {info.status:<11} " + " · ".join(parts)


def listing(infos: list[BackgroundAgentInfo]) -> str:
    """Every background agent, one line each."""
    if not infos:
        return "No background agents. The model starts one with task(background: true)."
    lines = [status_line(info) for info in infos]
    return "\n".join([*lines, "", "/agents show ID · /agents steer ID TEXT · /agents abort ID"])


def thread_text(info: BackgroundAgentInfo, messages: list[Message]) -> str:
    """One child's whole thread as text."""
    out = [status_line(info), ""]
    for message in messages:
        if isinstance(message, UserMessage):
            out += ["› " + line for line in message.text.splitlines() or [""]]
        elif isinstance(message, AssistantMessage):
            if message.text.strip():
                out.append(message.text.strip())
            out += [f"● {c.name} {first_line(str(c.arguments), 160)}" for c in message.tool_calls]
            if message.stop_reason in ("error", "aborted"):
                why = f": {message.error_message}" if message.error_message else ""
                out.append(f"[{message.stop_reason}{why}]")
        elif isinstance(message, ToolResultMessage):
            lines = message.text.splitlines()
            shown = ["  │ " + line for line in lines[:RESULT_LINES]]
            if len(lines) > RESULT_LINES:
                shown.append(f"  │ … {len(lines) - RESULT_LINES} more lines")
            out += shown or ["  │ (no output)"]
        out.append("")
    if not messages:
        out.append("(no transcript recorded)")
    return "\n".join(out).rstrip()
