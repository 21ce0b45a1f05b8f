"""The system prompt: role and tool guidelines, then context files, skills, date and cwd."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pi_cli.shell.context_files import ContextFile

BASE_PROMPT = """You are an expert coding assistant working inside pi, a terminal coding agent. \
You help the user with software engineering tasks by reading files, running commands, \
editing code and writing new files in their project."""

_GUIDELINES: dict[str, str] = {
    "read": "Use read to look at files before you change or explain them; prefer it over cat/sed in bash.",
    "edit": "Use edit for precise changes: old_text must match the file exactly (include enough context to be unique).",
    "write": "Use write only for new files or complete rewrites.",
    "bash": "Use bash for running programs, tests, git and file operations such as ls, mkdir, mv.",
    "grep": "Use grep to search file contents (respects .gitignore) instead of grep/rg in bash.",
    "find": "Use find to locate files by glob pattern instead of find in bash.",
    "ls": "Use ls to list a directory.",
}


def build_system_prompt(
    *,
    cwd: Path,
    tools: Sequence[Any],
    context_files: Sequence[ContextFile] = (),
    custom_prompt: str | None = None,
    append_prompt: str | None = None,
    skills_block: str | None = None,
    today: _dt.date | None = None,
) -> str:
    """Assemble the system prompt.

    Args:
        cwd: working directory (stated at the end).
        tools: enabled tools (``name`` and optional ``summary``/``description``).
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
            for tool in tools:
                summary = (
                    getattr(tool, "summary", None)
                    or str(getattr(tool, "description", "")).split("\n")[0]
                )
                lines.append(f"- {tool.name}: {summary}")
            parts.append("\n".join(lines))
        else:
            parts.append("No tools are enabled: answer from the conversation alone.")
        guidelines = [_GUIDELINES[t.name] for t in tools if t.name in _GUIDELINES]
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
            blocks.append(f"## {item.path}\n\n{item.content.strip()}")
        parts.append("\n\n".join(blocks))
    if skills_block:
        parts.append(skills_block.strip())
    day = (today or _dt.date.today()).isoformat()
    parts.append(f"Current date: {day}\nCurrent working directory: {cwd}")
    return "\n\n".join(parts)
