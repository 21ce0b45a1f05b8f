"""Agent Skills: discovery, validation, the system-prompt block and ``/skill:name``.

A skill is a directory holding ``SKILL.md`` whose front matter has ``description`` and usually
``name`` (<= 64 chars of ``[a-z0-9-]``, equal to the directory name). Loading follows pi's
loader: a skill breaking the name rules or with a description over 1024 characters is loaded
with a warning, one without ``name`` is named after its directory, and only a missing
description or unreadable front matter (broken YAML: the message gives file and line) skips
it. Nothing is skipped silently. Only names, descriptions and paths go into the system prompt
(progressive disclosure); ``/skill:name args`` injects the body with the skill's directory and
the files under its ``scripts/``, ``references/`` and ``assets/`` as absolute paths.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pi_cli.shell.commands import CommandResult, ShellAPI, SlashCommand
from pi_cli.shell.paths import git_root, pi_home, pi_ts_home
from pi_cli.shell.prompt.frontmatter import FrontmatterError, parse_document, text_field

SKILL_FILE = "SKILL.md"
MAX_NAME = 64
MAX_DESCRIPTION = 1024
RESOURCE_DIRS = ("scripts", "references", "assets")
MAX_LISTED_FILES = 60
_NAME = re.compile(r"^[a-z0-9-]+$")
_SKIP_DIRS = {"node_modules", "__pycache__"}


@dataclass
class Skill:
    """One loaded skill."""

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
        """The instructions (SKILL.md without front matter), read on demand."""
        return parse_document(self.path.read_text(encoding="utf-8")).body.strip()

    def resource_files(self) -> list[Path]:
        """Files under ``scripts/``, ``references/`` and ``assets/`` (at most a few dozen)."""
        found: list[Path] = []
        for name in RESOURCE_DIRS:
            folder = self.base_dir / name
            if not folder.is_dir():
                continue
            try:
                found += sorted(p for p in folder.rglob("*") if p.is_file())
            except OSError:
                continue
        return found[:MAX_LISTED_FILES]


@dataclass
class SkillProblem:
    """Something wrong with a skill file: where, what, and whether the skill was still loaded."""

    path: Path
    problem: str
    line: int | None = None
    loaded: bool = False

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        outcome = "loaded anyway" if self.loaded else "skipped"
        return f"Skill {where}: {self.problem} ({outcome})"


def name_problems(name: str, dir_name: str) -> list[str]:
    """pi's name rules, worded as pi words them (each only a warning)."""
    problems: list[str] = []
    if name != dir_name:
        problems.append(f'name "{name}" does not match parent directory "{dir_name}"')
    if len(name) > MAX_NAME:
        problems.append(f"name exceeds {MAX_NAME} characters ({len(name)})")
    if not _NAME.match(name):
        problems.append(
            "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"
        )
    if name.startswith("-") or name.endswith("-"):
        problems.append("name must not start or end with a hyphen")
    if "--" in name:
        problems.append("name must not contain consecutive hyphens")
    return problems


def load_skill_file(path: Path, source: str) -> tuple[Skill | None, list[SkillProblem]]:
    """Read one skill file: the skill (``None`` if it cannot be used) and its problems."""
    try:
        doc = parse_document(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return None, [SkillProblem(path, f"cannot read file: {exc}")]
    except FrontmatterError as exc:
        return None, [SkillProblem(path, str(exc), exc.line)]
    description = doc.fields.get("description")
    if isinstance(description, int | float) and not isinstance(description, bool):
        description = str(description)
    if description is not None and not isinstance(description, str):
        return None, [SkillProblem(path, "description must be text", 2)]
    if not description or not description.strip():
        return None, [SkillProblem(path, "description is required")]
    problems: list[SkillProblem] = []
    if len(description) > MAX_DESCRIPTION:
        problems.append(
            SkillProblem(
                path,
                f"description exceeds {MAX_DESCRIPTION} characters ({len(description)})",
                loaded=True,
            )
        )
    name = text_field(doc.fields, "name") or path.parent.name
    problems += [
        SkillProblem(path, text, loaded=True) for text in name_problems(name, path.parent.name)
    ]
    skill = Skill(
        name=name,
        description=description.strip(),
        path=path,
        source=source,
        model_invocable=doc.fields.get("disable-model-invocation") is not True,
    )
    return skill, problems


def _skill_files(root: Path, seen: set[Path] | None = None, top: bool = True) -> list[Path]:
    """Skill files under ``root``, as pi finds them.

    A directory holding ``SKILL.md`` is one skill (not searched further); other directories are
    searched recursively; at the top level, loose ``*.md`` files are skills too. ``seen`` holds
    the resolved directories already visited, so a symlink loop ends.
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
        children = sorted(root.iterdir())
    except OSError:
        return found
    for child in children:
        if child.name.startswith(".") or child.name in _SKIP_DIRS:
            continue
        try:
            if child.is_dir():
                found.extend(_skill_files(child, seen, top=False))
            elif top and child.suffix == ".md" and child.is_file():
                found.append(child)
        except OSError:
            continue
    return found


def skill_roots(cwd: Path, extra_paths: list[str] | None = None) -> list[tuple[Path, str]]:
    """Where to look, in precedence order (the first skill of a name wins).

    pi's and the Agent Skills locations, and Claude Code's (``~/.claude/skills``,
    ``.claude/skills``); project folders from ``cwd`` up to the git root.
    """
    pi_ts = pi_ts_home()
    roots: list[tuple[Path, str]] = [
        (pi_home() / "skills", "user"),
        *([(pi_ts / "skills", "user")] if pi_ts is not None else []),  # the TypeScript pi's
        (Path.home() / ".agents" / "skills", "user"),
        (Path.home() / ".claude" / "skills", "user"),
    ]
    top = git_root(cwd) or cwd
    directory = cwd
    while True:
        roots += [
            (directory / ".pi" / "skills", "project"),
            (directory / ".agents" / "skills", "project"),
            (directory / ".claude" / "skills", "project"),
        ]
        if directory == top or directory.parent == directory:
            break
        directory = directory.parent
    for raw in extra_paths or []:
        path = Path(raw).expanduser()
        roots.append(((cwd / path) if not path.is_absolute() else path, "path"))
    return roots


def _root_files(root: Path, source: str, problems: list[SkillProblem]) -> list[Path]:
    """A ``--skill`` path that is not a directory: the file itself, or a problem."""
    if not root.exists():
        problems.append(SkillProblem(root, "skill path does not exist"))
    elif root.suffix != ".md":
        problems.append(SkillProblem(root, "skill path is not a markdown file"))
    else:
        return [root]
    return []


def load_skills_from_dir(
    root: Path, source: str, seen: set[Path] | None = None
) -> tuple[list[Skill], list[SkillProblem]]:
    """Every skill under ``root`` (pi's ``loadSkillsFromDir``): (skills, problems)."""
    skills: list[Skill] = []
    problems: list[SkillProblem] = []
    seen = set() if seen is None else seen
    for file in _skill_files(root) if root.is_dir() else []:
        resolved = file.resolve()
        if resolved in seen:  # the same file reached through a symlink: not a problem
            continue
        seen.add(resolved)
        skill, found = load_skill_file(file, source)
        problems += found
        if skill is not None:
            skills.append(skill)
    return skills, problems


def discover_skills(
    cwd: Path, extra_paths: list[str] | None = None
) -> tuple[list[Skill], list[SkillProblem]]:
    """Find and load every skill. Returns (loaded skills, problems to report)."""
    skills: dict[str, Skill] = {}
    problems: list[SkillProblem] = []
    seen: set[Path] = set()
    for root, source in skill_roots(cwd, extra_paths):
        if source == "path" and not root.is_dir():
            files = _root_files(root, source, problems)
            found = [load_skill_file(f, source) for f in files if f.resolve() not in seen]
            seen.update(f.resolve() for f in files)
            loaded = [skill for skill, _ in found if skill is not None]
            problems += [problem for _, issues in found for problem in issues]
        else:
            loaded, issues = load_skills_from_dir(root, source, seen)
            problems += issues
        for skill in loaded:
            if skill.name in skills:
                winner = skills[skill.name].path
                problems.append(
                    SkillProblem(
                        skill.path, f'name "{skill.name}" collision: {winner} is used instead'
                    )
                )
                continue
            skills[skill.name] = skill
    return list(skills.values()), problems


def format_skills_block(skills: list[Skill]) -> str | None:
    """The ``<available_skills>`` system-prompt section (``None`` if no skill is model-invocable)."""
    visible = [s for s in skills if s.model_invocable]
    if not visible:
        return None
    from html import escape  # ~2 ms with html.entities: only when there are skills to list

    lines = [
        "The following skills provide specialized instructions for specific tasks.",
        "Use the read tool to load a skill's file when the task matches its description.",
        "When a skill file references a relative path, resolve it against the skill directory "
        "(parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.",
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
    """The text ``/skill:name args`` sends to the model (pi's block, plus the skill's files)."""
    parts = [f"References are relative to {skill.base_dir}.", "", skill.body()]
    files = skill.resource_files()
    if files:
        listing = "\n".join(f"- {path}" for path in files)
        parts += ["", f"Files of this skill (absolute paths):\n{listing}"]
    block = "\n".join(parts)
    text = f'<skill name="{skill.name}" location="{skill.path}">\n{block}\n</skill>'
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
