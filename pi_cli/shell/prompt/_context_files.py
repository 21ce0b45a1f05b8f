"""Context files: ``AGENTS.md`` (or ``CLAUDE.md``) from ``~/.pi`` and every directory root -> cwd.

Each may import other files with ``@path`` (:mod:`pi_cli.shell.prompt._context_imports`); those follow
the file importing them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pi_cli.shell.paths import git_root, pi_home, project_dir
from pi_cli.shell.prompt._context_imports import ImportState, resolve_imports

CONTEXT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")


@dataclass
class ContextFile:
    """One loaded context file."""

    path: Path
    content: str
    imported_by: Path | None = None


def _first_in(directory: Path) -> ContextFile | None:
    for name in CONTEXT_FILE_NAMES:
        candidate = directory / name
        try:
            if candidate.is_file():
                return ContextFile(
                    candidate, candidate.read_text(encoding="utf-8", errors="replace")
                )
        except OSError:
            continue
    return None


def load_context_files(cwd: Path) -> list[ContextFile]:
    """Global file first, then each ancestor from the filesystem root down to ``cwd``."""
    return load_context(cwd)[0]


def load_context(
    cwd: Path, allow_outside: Callable[[Path], bool] | None = None
) -> tuple[list[ContextFile], list[str]]:
    """The context files with their imports, and notices about imports not followed.

    Imports of the global file stay inside ``PI_HOME``, those of the others inside the project
    (git root, else ``cwd``) unless ``allow_outside`` (a trusted project) says otherwise.
    """
    state = ImportState()
    home = pi_home()
    top: list[ContextFile] = []
    for directory in [home, *reversed([cwd, *cwd.parents])]:
        loaded = _first_in(directory)
        if loaded is not None and loaded.path.resolve() not in state.seen:
            state.seen.add(loaded.path.resolve())
            top.append(loaded)
    project = git_root(cwd) or cwd
    found: list[ContextFile] = []
    for item in top:
        found.append(item)
        scope = home if item.path.parent == home else project
        for imported in resolve_imports(item.path, item.content, scope, state, allow_outside):
            found.append(ContextFile(imported.path, imported.content, imported.imported_by))
    return found, state.notices


def read_prompt_override(
    cwd: Path, name: str, warn: Callable[[str], None] | None = None
) -> str | None:
    """``.pi/<name>`` of the project, else ``~/.pi/<name>`` (SYSTEM.md / APPEND_SYSTEM.md).

    An unreadable file is skipped and reported through ``warn`` (it must not stop start-up).
    """
    for directory in (project_dir(cwd), pi_home()):
        candidate = directory / name
        try:
            if candidate.is_file():
                return candidate.read_text(encoding="utf-8", errors="replace")
        except (OSError, UnicodeDecodeError) as exc:
            if warn is not None:
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
                warn(f"Cannot read {candidate}: {reason}; ignoring it.")
    return None
