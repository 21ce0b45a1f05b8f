"""Prompt history shared with the plain REPL: ``$PI_HOME/history`` in prompt_toolkit's format.

``FileHistory`` writes each entry as a ``# <timestamp>`` line followed by the entry's lines,
each prefixed with ``+``. This module reads and appends exactly that, so prompts typed in the
TUI come back with Up in ``pi --plain`` and the other way round (without importing
prompt_toolkit here).
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path

MAX_ENTRIES = 5000  # only the newest are kept in memory
MAX_ENTRY_CHARS = 100_000  # a huge paste is not worth recalling


def load_history(path: Path) -> list[str]:
    """The entries of ``path``, oldest first (consecutive duplicates folded)."""
    try:
        data = path.read_bytes()
    except OSError:
        return []
    entries: list[str] = []
    lines: list[str] = []

    def add() -> None:
        if lines:
            text = "".join(lines)[:-1]  # the last line's newline
            if not entries or entries[-1] != text:
                entries.append(text)

    for raw in data.decode("utf-8", "replace").splitlines(keepends=True):
        if raw.startswith("+"):
            lines.append(raw[1:] if raw.endswith("\n") else raw[1:] + "\n")
        else:
            add()
            lines = []
    add()
    return entries[-MAX_ENTRIES:]


def append_history(path: Path, text: str) -> str | None:
    """Append one entry; the problem to show when the file cannot be written."""
    if not text.strip() or len(text) > MAX_ENTRY_CHARS:
        return None
    body = "".join(f"+{line}\n" for line in text.split("\n"))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("ab") as handle:
            handle.write(f"\n# {_dt.datetime.now()}\n{body}".encode())
    except OSError as exc:
        return f"Prompt history not saved ({path}): {exc.strerror or exc}"
    return None


class PromptHistory:
    """Up/Down browsing over the entries, keeping the draft that was in the editor."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: list[str] = load_history(path) if path is not None else []
        self.index: int | None = None  # browsing position; None: not browsing
        self.draft = ""

    def add(self, text: str) -> str | None:
        """Remember a sent prompt (in memory and in the file); stops browsing."""
        self.index = None
        if not text.strip():
            return None
        if not self.entries or self.entries[-1] != text:
            self.entries.append(text)
        return append_history(self.path, text) if self.path is not None else None

    @property
    def browsing(self) -> bool:
        """True while an earlier entry is shown."""
        return self.index is not None

    def step(self, direction: int, current: str) -> str | None:
        """The entry ``direction`` (-1 earlier, +1 later) away, or the draft past the newest;
        ``None`` when there is nowhere to go."""
        if not self.entries:
            return None
        if self.index is None:
            if direction > 0:
                return None
            self.draft, self.index = current, len(self.entries) - 1
            return self.entries[self.index]
        target = self.index + direction
        if target < 0:
            return None
        if target >= len(self.entries):
            self.index = None
            return self.draft
        self.index = target
        return self.entries[target]

    def stop(self) -> None:
        """The user edited the recalled text: it is a new draft now."""
        self.index = None

    def newest_first(self) -> list[str]:
        """Every entry, newest first, without repeats (Ctrl+R search)."""
        return list(dict.fromkeys(reversed(self.entries)))
