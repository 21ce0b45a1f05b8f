"""``/context``: what fills the context window, part by part, as bars with token counts.

The parts are what is sent with every request: the system prompt's own instructions, the
context files (AGENTS.md, CLAUDE.md and their imports) and the skills list inside it, the
tools' definitions, and the conversation. Parts are estimated at 4 characters a token, as the
footer estimates what a provider has not counted yet; the total is the provider's own count
when an answer reported one (the footer's number), and the conversation is then what is left of
it after the estimated fixed parts.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from agent_core import Agent, tool_spec
from pi_cli.shell.commands import CommandResult
from pi_cli.shell.models.usage import estimate_tokens, reported_context, short_tokens
from pi_cli.shell.prompt.sources import PromptSources

if TYPE_CHECKING:
    from pi_cli.shell.commands import ShellAPI

BAR_CELLS = 30


@dataclass(frozen=True)
class ContextPart:
    """One part of the context: its name, tokens and a short note (``3 files``)."""

    name: str
    tokens: int
    note: str = ""


@dataclass(frozen=True)
class ContextReport:
    """What fills the context window (``parts`` add up to ``used``)."""

    parts: list[ContextPart]
    used: int
    window: int

    def wire(self) -> dict[str, Any]:
        """The report as JSON (RPC ``get_context``): camelCase keys."""
        return {
            "used": self.used,
            "window": self.window,
            "free": max(0, self.window - self.used),
            "parts": [asdict(part) for part in self.parts],
        }


def _prompt_of(shell: ShellAPI) -> tuple[str, PromptSources | None]:
    """The system prompt and what it was built from (a CodingAgent has both; a test double of
    :class:`ShellAPI` may have neither)."""
    agent = getattr(shell, "agent", None)
    sources = getattr(shell, "sources", None)
    prompt = agent.system_prompt if isinstance(agent, Agent) else ""
    return prompt, sources if isinstance(sources, PromptSources) else None


def context_report(shell: ShellAPI) -> ContextReport:
    """Measure what fills ``shell``'s context window now."""
    prompt, sources = _prompt_of(shell)
    system = estimate_tokens(prompt)
    files = sources.context_files if sources is not None else []
    file_tokens = sum(estimate_tokens(f"## {f.path}\n\n{f.content.strip()}") for f in files)
    has_read = any(tool.name == "read" for tool in shell.tools)
    block = sources.skills.prompt_block() if has_read and sources is not None else None
    skill_tokens = estimate_tokens(block) if block else 0
    specs = [asdict(tool_spec(tool)) for tool in shell.tools]
    tool_tokens = sum(estimate_tokens(json.dumps(spec, ensure_ascii=False)) for spec in specs)
    instructions = max(0, system - file_tokens - skill_tokens)
    used, window = shell.context_usage()
    messages = shell.messages
    fixed = system + tool_tokens
    reported = any(reported_context(m) > 0 for m in reversed(messages))
    conversation = max(0, used - fixed) if reported else used
    file_note = ", ".join(str(f.path.name) for f in files[:4]) + (" …" if len(files) > 4 else "")
    skills = len(sources.skills.skills) if block and sources is not None else 0
    parts = [
        ContextPart("system prompt", instructions, "pi's instructions"),
        ContextPart("context files", file_tokens, file_note or "none"),
        ContextPart("skills", skill_tokens, f"{skills} skill{'' if skills == 1 else 's'}"),
        ContextPart("tools", tool_tokens, f"{len(specs)} tool{'' if len(specs) == 1 else 's'}"),
        ContextPart("messages", conversation, f"{len(messages)} messages"),
    ]
    return ContextReport(parts, sum(p.tokens for p in parts), window)


def _window(tokens: int) -> str:
    return f"{tokens // 1000}k" if tokens >= 1000 else str(tokens)  # the footer's "128k"


def _bar(tokens: int, window: int) -> str:
    cells = 0 if tokens <= 0 else max(1, round(BAR_CELLS * tokens / max(window, 1)))
    cells = min(cells, BAR_CELLS)
    return "█" * cells + "░" * (BAR_CELLS - cells)


def format_context(report: ContextReport) -> str:
    """The report as text: one bar per part, scaled to the whole window."""
    share = 100 * report.used / max(report.window, 1)
    lines = [
        f"Context: {short_tokens(report.used)} of {_window(report.window)} tokens ({share:.0f}%)"
    ]
    free = ContextPart("free", max(0, report.window - report.used))
    for part in [*report.parts, free]:
        note = f"  {part.note}" if part.note else ""
        lines.append(
            f"  {part.name:<15}{_bar(part.tokens, report.window)} {short_tokens(part.tokens):>6}"
            f"{note}"
        )
    lines.append(
        "Parts are estimated at 4 characters a token; the messages are what the provider "
        "counted beyond them."
    )
    return "\n".join(lines)


async def context_command(shell: ShellAPI, args: str) -> CommandResult:
    """``/context``."""
    return CommandResult(output=format_context(context_report(shell)))
