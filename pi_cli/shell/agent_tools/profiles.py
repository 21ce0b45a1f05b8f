"""Agent profiles for the ``task`` tool, in Claude Code's format.

A profile is a Markdown file whose front matter has ``name``, ``description`` and optionally
``tools`` (a comma-separated string or a list, Claude Code's names or pi's) and ``model`` (a
model spec, or Claude Code's aliases ``sonnet``, ``opus``, ``haiku``, ``inherit``); the body is
the sub-agent's system prompt. Read from, highest precedence first (the first of a name wins):
``.pi/agents/*.md`` and ``.claude/agents/*.md`` of the project (only in a trusted folder: a
profile chooses tools and a model, like other project configuration), then
``$PI_HOME/agents/*.md`` and ``~/.claude/agents/*.md``. A broken file is reported, not loaded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from pi_cli.shell.packages.lock import package_paths
from pi_cli.shell.paths import pi_home
from pi_cli.shell.prompt.frontmatter import FrontmatterError, parse_document, text_field

MAX_PROFILES = 100
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
CLAUDE_TOOLS = {
    "read": "read",
    "write": "write",
    "edit": "edit",
    "multiedit": "edit",
    "bash": "bash",
    "grep": "grep",
    "glob": "find",
    "find": "find",
    "ls": "ls",
    "webfetch": "web_fetch",
    "web_fetch": "web_fetch",
}
"""Claude Code's tool names (and pi's) -> pi's tools a sub-agent may get."""
_NOT_FOR_SUBAGENTS = {"task", "todowrite", "todo_write", "exitplanmode", "exit_plan_mode"}


@dataclass
class AgentProfile:
    """One loaded profile (``tools`` None: every tool of the parent but the agent tools)."""

    name: str
    description: str
    prompt: str
    path: Path | None = None
    source: str = "builtin"
    tools: list[str] | None = None
    model: str | None = None


def profile_dirs(cwd: Path, trusted: bool) -> list[tuple[Path, str]]:
    """(directory, source) to read, highest precedence first."""
    project = [(cwd / ".pi" / "agents", "project"), (cwd / ".claude" / "agents", "project")]
    user = [(pi_home() / "agents", "user"), (Path.home() / ".claude" / "agents", "user")]
    packaged = [(folder, "package") for folder in package_paths("agents")]
    return [*(project if trusted else []), *user, *packaged]


def load_profiles(cwd: Path, trusted: bool) -> tuple[list[AgentProfile], list[str]]:
    """Every readable profile (first of each name) and the problems found."""
    profiles: dict[str, AgentProfile] = {}
    problems: list[str] = []
    for directory, source in profile_dirs(cwd, trusted):
        try:
            files = sorted(p for p in directory.glob("*.md") if p.is_file())
        except OSError:
            continue
        for path in files:
            profile = _read(path, source, problems)
            if profile is not None and profile.name not in profiles:
                if len(profiles) >= MAX_PROFILES:
                    problems.append(f"Agent profiles: more than {MAX_PROFILES}; ignoring {path}")
                    continue
                profiles[profile.name] = profile
    return list(profiles.values()), problems


def read_profile(path: Path, source: str, problems: list[str]) -> AgentProfile | None:
    """One profile file (None: unusable; why is added to ``problems``)."""
    return _read(path, source, problems)


def _read(path: Path, source: str, problems: list[str]) -> AgentProfile | None:
    try:
        document = parse_document(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(f"Agent profile {path}: cannot be read ({exc}); skipped")
        return None
    except FrontmatterError as exc:
        where = f"{path}:{exc.line}" if exc.line else str(path)
        problems.append(f"Agent profile {where}: {exc}; skipped")
        return None
    fields = document.fields
    name = (text_field(fields, "name") or path.stem).strip()
    description = (text_field(fields, "description") or "").strip()
    why = None
    if not _NAME.match(name):
        why = f"name {name!r} is not lower-case letters, digits, - and _"
    elif not description:
        why = "it has no description (the model picks an agent by it)"
    elif not document.body.strip():
        why = "its body (the agent's system prompt) is empty"
    if why:
        problems.append(f"Agent profile {path}: {why}; skipped")
        return None
    tools = _tools(fields.get("tools"), path, problems)
    model = (text_field(fields, "model") or "").strip() or None
    return AgentProfile(name, description, document.body.strip(), path, source, tools, model)


def _tools(value: object, path: Path, problems: list[str]) -> list[str] | None:
    """pi's names of a ``tools`` field (None: not given, all tools); unknown names reported."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        names = [part.strip() for part in value.split(",")]
    elif isinstance(value, list):
        names = [str(part).strip() for part in value]
    else:
        problems.append(f"Agent profile {path}: tools must be a list or a comma list; ignored")
        return None
    out: list[str] = []
    for name in filter(None, names):
        key = name.lower()
        if key in _NOT_FOR_SUBAGENTS:
            continue  # a sub-agent never gets these
        if key in CLAUDE_TOOLS:
            mapped = CLAUDE_TOOLS[key]
        elif name.startswith("mcp__"):
            mapped = name  # an MCP tool the parent has, by its own name
        else:
            problems.append(f"Agent profile {path}: tool {name!r} is unknown to pi; ignored")
            continue
        if mapped not in out:
            out.append(mapped)
    return out
