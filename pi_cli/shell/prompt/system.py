"""The system prompt: role and tool guidelines, then context files, skills, date and cwd."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pi_cli.shell.prompt._context_files import ContextFile, read_prompt_override

if TYPE_CHECKING:
    from agent_core import Tool
    from pi_cli.shell.options import ShellOptions
    from pi_cli.shell.prompt._skills import SkillSet

BASE_PROMPT = """You are an expert coding assistant working inside pi, a terminal coding agent. \
You help the user with software engineering tasks by reading files, running commands, \
editing code and writing new files in their project."""


def build_system_prompt(
    *,
    cwd: Path,
    tools: Sequence[Tool],
    context_files: Sequence[ContextFile] = (),
    custom_prompt: str | None = None,
    append_prompt: str | None = None,
    skills_block: str | None = None,
    today: _dt.date | None = None,
) -> str:
    """Assemble the system prompt.

    Args:
        cwd: working directory (stated at the end).
        tools: enabled tools (each gives its summary line and its guideline).
        context_files: AGENTS.md/CLAUDE.md files, added under their paths.
        custom_prompt: replaces the default role and guidelines (``SYSTEM.md`` / ``--system-prompt``).
        append_prompt: appended after the guidelines (``APPEND_SYSTEM.md`` / ``--append-system-prompt``).
        skills_block: the available-skills section, if any.
        today: the date to state (default: today).
    """
    parts: list[str] = []
    if custom_prompt is not None:
        parts.append(custom_prompt.strip())
    else:
        parts.append(BASE_PROMPT)
        if tools:
            lines = ["Available tools:"]
            lines += [f"- {tool.name}: {tool.summary}" for tool in tools]
            parts.append("\n".join(lines))
        else:
            parts.append("No tools are enabled: answer from the conversation alone.")
        guidelines = [tool.guideline for tool in tools if tool.guideline]
        guidelines += [
            "Be concise. Show file paths clearly when you mention files.",
            "When the task is done, answer with a short summary of what you did or found.",
        ]
        parts.append("Guidelines:\n" + "\n".join(f"- {line}" for line in guidelines))
    if append_prompt:
        parts.append(append_prompt.strip())
    if context_files:
        blocks = ["# Project Context", "Project-specific instructions and guidelines:"]
        for item in context_files:
            origin = f" (imported by {item.imported_by})" if item.imported_by else ""
            blocks.append(f"## {item.path}{origin}\n\n{item.content.strip()}")
        parts.append("\n\n".join(blocks))
    if skills_block:
        parts.append(skills_block.strip())
    day = (today or _dt.date.today()).isoformat()
    parts.append(f"Current date: {day}\nCurrent working directory: {cwd}")
    return "\n\n".join(parts)


def shell_system_prompt(
    cwd: Path,
    options: ShellOptions,
    tools: Sequence[Tool],
    context_files: Sequence[ContextFile],
    skills: SkillSet,
    warn: Callable[[str], None],
    fragments: Sequence[str] = (),
) -> str:
    """The shell's prompt: ``--system-prompt`` or ``.pi/SYSTEM.md`` replace the default,
    ``APPEND_SYSTEM.md`` and ``--append-system-prompt`` extend it; skills need the read tool."""
    custom = options.system_prompt or read_prompt_override(cwd, "SYSTEM.md", warn)
    append_parts = [
        read_prompt_override(cwd, "APPEND_SYSTEM.md", warn),
        options.append_system_prompt,
    ]
    append_parts.extend(fragments)  # the parts' own sections (--output-schema's answer format)
    has_read = any(tool.name == "read" for tool in tools)
    return build_system_prompt(
        cwd=cwd,
        tools=tools,
        context_files=context_files,
        custom_prompt=custom,
        append_prompt="\n\n".join(p for p in append_parts if p) or None,
        skills_block=skills.prompt_block() if has_read else None,
    )
