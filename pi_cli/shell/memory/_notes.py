"""``# note``: one line appended to the project's or the user's memory file.

The files are the ones pi's context loader reads (:mod:`pi_cli.shell.prompt.sources`): the
project's is the nearest ``AGENTS.md`` (or ``CLAUDE.md`` when only that is there) from the
working directory up to the git root, else a new ``AGENTS.md`` at the git root (or the working
directory outside git); the user's is the same name in ``$PI_HOME`` (``~/.pi``), created when
missing. The note is appended as a Markdown list item (``- note``), cleaned of
control characters, on a line of its own.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pi_cli.shell.paths import git_root, pi_home
from pi_cli.shell.prompt.sources import CONTEXT_FILE_NAMES
from pi_cli.shell.text.terminal import clean

MAX_NOTE_CHARS = 4000
NoteScope = Literal["project", "user"]


@dataclass(frozen=True)
class MemoryFile:
    """Where notes of one scope go."""

    scope: NoteScope
    path: Path

    @property
    def label(self) -> str:
        """``Project memory`` / ``User memory`` (a dialog's option)."""
        return "Project memory" if self.scope == "project" else "User memory"


def memory_files(cwd: Path) -> list[MemoryFile]:
    """The project's memory file, then the user's (existing names preferred, as loaded)."""
    root = git_root(cwd) or cwd
    upwards = [cwd, *cwd.parents]
    chain = upwards[: upwards.index(root) + 1] if root in upwards else [cwd]
    project = next((f for d in chain if (f := _existing(d)) is not None), None)
    user = _existing(pi_home())
    return [
        MemoryFile("project", project or root / CONTEXT_FILE_NAMES[0]),
        MemoryFile("user", user or pi_home() / CONTEXT_FILE_NAMES[0]),
    ]


def _existing(directory: Path) -> Path | None:
    return next((p for n in CONTEXT_FILE_NAMES if (p := directory / n).is_file()), None)


def note_text(text: str) -> str:
    """The note as stored: cleaned, on one line, capped."""
    return " ".join(clean(text).split())[:MAX_NOTE_CHARS]


def append_note(path: Path, note: str) -> None:
    """Append ``- note`` to ``path`` on a line of its own (the file and its folder created if
    missing). Raises OSError."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    with os.fdopen(fd, "r+b") as handle:
        size = handle.seek(0, os.SEEK_END)
        prefix = b""
        if size:
            handle.seek(size - 1)
            prefix = b"" if handle.read(1) == b"\n" else b"\n"
        handle.write(prefix + f"- {note}\n".encode())
