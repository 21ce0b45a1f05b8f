"""Context files: ``AGENTS.md`` (or ``CLAUDE.md``) from ``~/.pi`` and every directory root -> cwd."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pi_cli.shell.paths import pi_home, project_dir

CONTEXT_FILE_NAMES = ("AGENTS.md", "CLAUDE.md")


@dataclass
class ContextFile:
    """One loaded context file."""

    path: Path
    content: str


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
    found: list[ContextFile] = []
    seen: set[Path] = set()
    directories = [pi_home(), *reversed([cwd, *cwd.parents])]
    for directory in directories:
        loaded = _first_in(directory)
        if loaded is not None:
            resolved = loaded.path.resolve()
            if resolved not in seen:
                seen.add(resolved)
                found.append(loaded)
    return found


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
