"""Prompt templates: ``*.md`` files become ``/name`` commands.

Read from ``$PI_HOME/prompts``, Claude Code's ``~/.claude/commands`` and ``.claude/commands``,
and ``.pi/prompts`` (a later folder wins a name over an earlier one). Every one is a full
Claude Code command file (:mod:`.command_files`: ``!`cmd` ``, ``@file``, ``allowed-tools``,
``model``...).

Arguments (shell-like split, quotes group words): ``$1 $2 ...``, ``$@`` / ``$ARGUMENTS`` (all),
``${@:N}`` (from the N-th on), ``${@:N:L}`` (L arguments from the N-th). A project template
overrides a global one of the same name; built-in commands are never replaced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from pi_cli.shell.commands import (
    CommandResult,
    ShellAPI,
    SlashCommand,
    SlashCommandRegistry,
)
from pi_cli.shell.packages.lock import package_paths
from pi_cli.shell.paths import pi_home, pi_ts_home, project_dir
from pi_cli.shell.prompt.command_files import CommandSpec, expand_command, spec_of, substitute
from pi_cli.shell.prompt.frontmatter import FrontmatterError, parse_document, text_field

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")


@dataclass
class PromptTemplate:
    """One template file."""

    name: str
    description: str
    body: str
    path: Path
    source: str  # "user" or "project"
    argument_hint: str = ""
    spec: CommandSpec = field(default_factory=CommandSpec)


def expand_template(body: str, args: list[str]) -> str:
    """Substitute the argument placeholders of ``body``."""
    return substitute(body, args)


def load_template(
    path: Path, source: str, *, claude: bool = False, name: str | None = None
) -> PromptTemplate:
    """Read one template (raises ``OSError``/``FrontmatterError`` if unreadable); ``claude``:
    a Claude Code command file (unnamed arguments are appended); ``name``: other than its stem."""
    doc = parse_document(path.read_text(encoding="utf-8"))
    description = (text_field(doc.fields, "description") or "").strip()
    hint = (text_field(doc.fields, "argument-hint") or "").strip()
    if not description:
        first = next((line.strip() for line in doc.body.splitlines() if line.strip()), "")
        description = first.lstrip("# ")[:80]
    return PromptTemplate(
        name=name or path.stem,
        description=description,
        body=doc.body,
        path=path,
        source=source,
        argument_hint=hint,
        spec=spec_of(doc, claude),
    )


def discover_templates(cwd: Path) -> tuple[list[PromptTemplate], list[str]]:
    """Templates by name (project wins over user) and problems to report."""
    found: dict[str, PromptTemplate] = {}
    problems: list[str] = []
    pi_ts = pi_ts_home()
    for directory, source in (
        *([(pi_ts / "prompts", "user")] if pi_ts is not None else []),  # the TypeScript pi's
        *((folder, "user") for folder in package_paths("prompts")),
        (pi_home() / "prompts", "user"),
        (Path.home() / ".claude" / "commands", "user"),
        (cwd / ".claude" / "commands", "project"),
        (project_dir(cwd) / "prompts", "project"),
    ):
        claude = directory.parent.name == ".claude"
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.md")):
            if not path.is_file():
                continue
            if not _NAME.match(path.stem):
                problems.append(
                    f"Skipped prompt template {path}: unusable command name {path.stem!r}"
                )
                continue
            try:
                found[path.stem] = load_template(path, source, claude=claude)
            except (OSError, UnicodeDecodeError, FrontmatterError) as exc:
                problems.append(f"Skipped prompt template {path}: {exc}")
    return list(found.values()), problems


def template_command(template: PromptTemplate, source: str = "") -> SlashCommand:
    """``/name`` running ``template`` as a full command file (:mod:`.command_files`)."""

    async def handler(shell: ShellAPI, args: str) -> CommandResult:
        return await expand_command(shell, template.name, template.body, template.spec, args)

    return SlashCommand(
        template.name,
        template.description or f"Prompt template {template.path.name}",
        handler,
        usage=template.argument_hint or "[args]",
        source=source or f"template:{template.source}",
    )


def load_templates(cwd: Path) -> tuple[list[PromptTemplate], list[str]]:
    """Every template of the user and the project (the project wins) and problems to report."""
    return discover_templates(cwd)


def template_commands(
    templates: list[PromptTemplate], commands: SlashCommandRegistry, problems: list[str]
) -> list[PromptTemplate]:
    """Register each template as ``/name`` in ``commands``; built-in names are never replaced.

    Returns the templates registered; a skipped one is added to ``problems``.
    """
    registered: list[PromptTemplate] = []
    for template in templates:
        existing = commands.get(template.name)
        if existing is not None and not existing.source.startswith("template"):
            problems.append(
                f"Skipped prompt template {template.path}: /{template.name} is a built-in command"
            )
            continue
        commands.register(template_command(template))
        registered.append(template)
    return registered
