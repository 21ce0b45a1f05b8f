"""What the prompt is made of besides the conversation: context files, skills, prompt templates.

Loaded together when a shell is built (and again when they are re-read), so the shell holds one
part for them instead of three loads in its constructor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pi_cli.shell.commands import SlashCommandRegistry
from pi_cli.shell.packages.declared import declared_notice
from pi_cli.shell.packages.lock import package_resources
from pi_cli.shell.prompt._context_files import CONTEXT_FILE_NAMES, ContextFile, load_context
from pi_cli.shell.prompt._skills import Skill, SkillSet, load_skills, skill_commands
from pi_cli.shell.prompt._templates import (
    PromptTemplate,
    load_template,
    load_templates,
    template_command,
    template_commands,
)
from pi_cli.shell.prompt.rules import RuleSet, load_rules

if TYPE_CHECKING:
    from pi_cli.shell.config.layers import LoadedSettings
    from pi_cli.shell.config.settings import Settings
    from pi_cli.shell.options import ShellOptions


class _Trust(Protocol):
    @property
    def trusted(self) -> bool: ...
    @property
    def loaded(self) -> LoadedSettings: ...


class SourcesHost(Protocol):
    """What :meth:`PromptSources.of` reads of a shell."""

    @property
    def cwd(self) -> Path: ...
    @property
    def options(self) -> ShellOptions: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def safety(self) -> _Trust: ...


__all__ = [
    "CONTEXT_FILE_NAMES",
    "PromptSources",
    "PromptTemplate",
    "Skill",
    "SkillSet",
    "load_template",
    "skill_commands",
    "template_command",
]


@dataclass
class PromptSources:
    """Context files (``AGENTS.md``..., and rules without ``paths``), skills, prompt templates
    and the path-scoped rules of one shell."""

    context_files: list[ContextFile]
    skills: SkillSet
    templates: list[PromptTemplate]
    problems: list[str] = field(default_factory=list)
    """What could not be loaded (bad skills, skipped templates, imports not followed)."""
    rules: RuleSet = field(default_factory=RuleSet)

    @classmethod
    def load(cls, cwd: Path, skill_paths: list[str], *, trusted: bool = False) -> PromptSources:
        """Read them all from disk (``skill_paths``: ``--skill`` and the ``skills`` setting;
        the project's rules only if ``trusted``)."""
        context_files, rules, import_notices = load_memory(cwd, trusted)
        # first in a build: checks the copies again, and names this project for the later calls
        packaged, package_problems = package_resources(fresh=True, project=(cwd, trusted))
        skills = load_skills(cwd, [*skill_paths, *map(str, packaged.get("skills", []))])
        templates, template_problems = load_templates(cwd)
        problems = [*map(str, skills.problems), *template_problems, *import_notices]
        problems += package_problems
        return cls(context_files, skills, templates, problems, rules)

    @classmethod
    def of(cls, shell: SourcesHost) -> PromptSources:
        """A shell's: its ``--skill`` paths and ``skills`` setting, project rules if trusted."""
        skill_paths = [*shell.options.skill_paths, *shell.settings.skills]
        sources = cls.load(shell.cwd, skill_paths, trusted=shell.safety.trusted)
        sources.problems += declared_notice(shell.cwd, shell.safety.loaded.layers)
        return sources

    def register(self, commands: SlashCommandRegistry) -> None:
        """``/skill:name`` per skill and ``/name`` per template (never over a built-in)."""
        commands.register_all(skill_commands(self.skills))
        self.templates = template_commands(self.templates, commands, self.problems)


def load_memory(cwd: Path, trusted: bool) -> tuple[list[ContextFile], RuleSet, list[str]]:
    """The context files with the rules that always apply after them, the rules, and what
    could not be loaded (imports not followed, unreadable or untrusted rules)."""
    context_files, notices = load_context(cwd)
    rules = load_rules(cwd, trusted)
    context_files += [ContextFile(rule.path, rule.body) for rule in rules.always]
    return context_files, rules, [*notices, *rules.problems]
