"""What the prompt is made of besides the conversation: context files, skills, prompt templates.

Loaded together when a shell is built (and again when they are re-read), so the shell holds one
part for them instead of three loads in its constructor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pi_cli.shell.commands import SlashCommandRegistry
from pi_cli.shell.packages.lock import package_resources
from pi_cli.shell.prompt._context_files import ContextFile, load_context
from pi_cli.shell.prompt._skills import Skill, SkillSet, load_skills, skill_commands
from pi_cli.shell.prompt._templates import (
    PromptTemplate,
    load_template,
    load_templates,
    template_command,
    template_commands,
)

__all__ = [
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
    """Context files (``AGENTS.md``...), skills and prompt templates of one shell."""

    context_files: list[ContextFile]
    skills: SkillSet
    templates: list[PromptTemplate]
    problems: list[str] = field(default_factory=list)
    """What could not be loaded (bad skills, skipped templates, imports not followed)."""

    @classmethod
    def load(cls, cwd: Path, skill_paths: list[str]) -> PromptSources:
        """Read them all from disk (``skill_paths``: ``--skill`` and the ``skills`` setting)."""
        context_files, import_notices = load_context(cwd)
        packaged, package_problems = package_resources(fresh=True)  # first in a build
        skills = load_skills(cwd, [*skill_paths, *map(str, packaged.get("skills", []))])
        templates, template_problems = load_templates(cwd)
        problems = [*map(str, skills.problems), *template_problems, *import_notices]
        problems += package_problems
        return cls(context_files, skills, templates, problems)

    def register(self, commands: SlashCommandRegistry) -> None:
        """``/skill:name`` per skill and ``/name`` per template (never over a built-in)."""
        commands.register_all(skill_commands(self.skills))
        self.templates = template_commands(self.templates, commands, self.problems)
