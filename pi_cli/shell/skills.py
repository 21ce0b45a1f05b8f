"""Agent Skills: discovery, validation, the system-prompt block and ``/skill:name``.

A skill is a directory holding ``SKILL.md`` whose frontmatter has ``name`` (<= 64 chars of
``[a-z0-9-]``, equal to the directory name) and ``description`` (<= 1024 chars). Only names,
descriptions and paths go into the system prompt (progressive disclosure): the model ``read``s
the file when a task matches. ``/skill:name args`` injects the body explicitly.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from pi_cli.shell.frontmatter import FrontmatterError, parse_document
from pi_cli.shell.paths import pi_home
from pi_cli.shell.slash_commands import CommandResult, ShellAPI, SlashCommand

SKILL_FILE = "SKILL.md"
MAX_NAME = 64
MAX_DESCRIPTION = 1024
_NAME = re.compile(r"^[a-z0-9-]+$")
_SKIP_DIRS = {"node_modules", "__pycache__"}


@dataclass
class Skill:
    """One valid skill."""

    name: str
    description: str
    path: Path  # the SKILL.md file
    source: str  # "user", "project" or "path"
    model_invocable: bool = True

    @property
    def base_dir(self) -> Path:
        """The skill's directory (relative paths in the body are relative to it)."""
        return self.path.parent

    def body(self) -> str:
        """The instructions (SKILL.md without frontmatter), read on demand."""
        return parse_document(self.path.read_text(encoding="utf-8")).body.strip()


@dataclass
class SkillProblem:
    """An invalid or shadowed skill: which file and what is wrong."""

    path: Path
    problem: str

    def __str__(self) -> str:
        return f"Skipped skill {self.path}: {self.problem}"


def validate_skill(path: Path, source: str) -> Skill | SkillProblem:
    """Read and validate one ``SKILL.md``."""
    try:
        doc = parse_document(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return SkillProblem(path, f"cannot read file: {exc}")
    except FrontmatterError as exc:
        return SkillProblem(path, str(exc))
    if not doc.has_frontmatter:
        return SkillProblem(path, "missing frontmatter (--- name/description ---)")
    name = doc.fields.get("name", "").strip()
    description = doc.fields.get("description", "").strip()
    dir_name = path.parent.name
    if not name:
        return SkillProblem(path, "frontmatter field 'name' is required")
    if len(name) > MAX_NAME:
        return SkillProblem(path, f"name {name!r} is longer than {MAX_NAME} characters")
    if not _NAME.match(name) or name.startswith("-") or name.endswith("-") or "--" in name:
        return SkillProblem(
            path, f"name {name!r} must be lowercase letters, digits and single hyphens"
        )
    if name != dir_name:
        return SkillProblem(path, f"name {name!r} does not match its directory {dir_name!r}")
    if not description:
        return SkillProblem(path, "frontmatter field 'description' is required")
    if len(description) > MAX_DESCRIPTION:
        return SkillProblem(
            path, f"description is longer than {MAX_DESCRIPTION} characters ({len(description)})"
        )
    invocable = doc.fields.get("disable-model-invocation", "false").strip().lower() != "true"
    return Skill(
        name=name, description=description, path=path, source=source, model_invocable=invocable
    )


def _skill_files(root: Path, seen: set[Path] | None = None) -> list[Path]:
    """``SKILL.md`` files under ``root``; a skill directory is not searched further.

    ``seen`` holds the resolved directories already visited, so a symlink loop ends.
    """
    seen = set() if seen is None else seen
    try:
        resolved = root.resolve()
    except (OSError, RuntimeError):  # RuntimeError: a symlink loop on older Pythons
        return []
    if resolved in seen:
        return []
    seen.add(resolved)
    if (root / SKILL_FILE).is_file():
        return [root / SKILL_FILE]
    found: list[Path] = []
    try:
        children = sorted(p for p in root.iterdir() if p.is_dir())
    except OSError:
        return found
    for child in children:
        if child.name.startswith(".") or child.name in _SKIP_DIRS:
            continue
        found.extend(_skill_files(child, seen))
    return found


def git_root(cwd: Path) -> Path | None:
    """The nearest directory at or above ``cwd`` holding ``.git``."""
    for directory in (cwd, *cwd.parents):
        if (directory / ".git").exists():
            return directory
    return None


def skill_roots(cwd: Path, extra_paths: list[str] | None = None) -> list[tuple[Path, str]]:
    """Where to look, in precedence order (the first skill of a name wins)."""
    roots: list[tuple[Path, str]] = [
        (pi_home() / "skills", "user"),
        (Path.home() / ".agents" / "skills", "user"),
    ]
    top = git_root(cwd) or cwd
    directory = cwd
    while True:
        roots += [
            (directory / ".pi" / "skills", "project"),
            (directory / ".agents" / "skills", "project"),
        ]
        if directory == top or directory.parent == directory:
            break
        directory = directory.parent
    for raw in extra_paths or []:
        path = Path(raw).expanduser()
        roots.append(((cwd / path) if not path.is_absolute() else path, "path"))
    return roots


def discover_skills(
    cwd: Path, extra_paths: list[str] | None = None
) -> tuple[list[Skill], list[SkillProblem]]:
    """Find and validate every skill. Returns (valid skills, problems to report)."""
    skills: dict[str, Skill] = {}
    problems: list[SkillProblem] = []
    seen: set[Path] = set()
    for root, source in skill_roots(cwd, extra_paths):
        if source == "path" and root.is_file():
            files = [root]
        elif root.is_dir():
            files = _skill_files(root)
        else:
            if source == "path":
                problems.append(SkillProblem(root, "no such file or directory"))
            continue
        for file in files:
            resolved = file.resolve()
            if resolved in seen:
                continue
            seen.add(resolved)
            result = validate_skill(file, source)
            if isinstance(result, SkillProblem):
                problems.append(result)
            elif result.name in skills:
                problems.append(
                    SkillProblem(
                        file, f"name {result.name!r} already used by {skills[result.name].path}"
                    )
                )
            else:
                skills[result.name] = result
    return list(skills.values()), problems


def format_skills_block(skills: list[Skill]) -> str | None:
    """The ``<available_skills>`` system-prompt section (``None`` if no skill is model-invocable)."""
    visible = [s for s in skills if s.model_invocable]
    if not visible:
        return None
    lines = [
        "The following skills provide specialized instructions for specific tasks.",
        "Use the read tool to load a skill's file when the task matches its description.",
        "When a skill file references a relative path, resolve it against the skill's directory.",
        "",
        "<available_skills>",
    ]
    for skill in visible:
        lines += [
            "  <skill>",
            f"    <name>{escape(skill.name)}</name>",
            f"    <description>{escape(skill.description)}</description>",
            f"    <location>{escape(str(skill.path))}</location>",
            "  </skill>",
        ]
    lines.append("</available_skills>")
    return "\n".join(lines)


def skill_prompt(skill: Skill, args: str) -> str:
    """The text ``/skill:name args`` sends to the model."""
    text = f'<skill name="{skill.name}" location="{skill.path}">\n{skill.body()}\n</skill>'
    return f"{text}\n\n{args}" if args.strip() else text


@dataclass
class SkillSet:
    """The skills found for a shell, and the files that could not be used."""

    skills: list[Skill] = field(default_factory=list)
    problems: list[SkillProblem] = field(default_factory=list)

    def __iter__(self) -> Iterator[Skill]:
        return iter(self.skills)

    def __len__(self) -> int:
        return len(self.skills)

    def prompt_block(self) -> str | None:
        """The ``<available_skills>`` system-prompt section (``None`` when empty)."""
        return format_skills_block(self.skills)


def load_skills(cwd: Path, extra_paths: list[str]) -> SkillSet:
    """Discover and validate every skill (``--skill`` paths and the ``skills`` setting too)."""
    skills, problems = discover_skills(cwd, extra_paths)
    return SkillSet(skills, problems)


def _skill_command(skill: Skill) -> SlashCommand:
    async def handler(shell: ShellAPI, args: str) -> CommandResult:
        try:
            return CommandResult(prompt=skill_prompt(skill, args))
        except OSError as exc:
            return CommandResult(output=f"Cannot read skill {skill.path}: {exc}", error=True)

    return SlashCommand(
        f"skill:{skill.name}",
        skill.description.splitlines()[0][:120],
        handler,
        usage="[args]",
        source="skill",
    )


def skill_commands(skills: SkillSet) -> list[SlashCommand]:
    """One ``/skill:name`` command per skill."""
    return [_skill_command(skill) for skill in skills]
