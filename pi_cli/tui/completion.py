"""Completion sources for the editor: ``/`` slash commands and ``@`` project files (fuzzy)."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MAX_ITEMS = 12
MAX_FILES = 20_000
_SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache"}


@dataclass(frozen=True)
class Completion:
    """One candidate: ``label`` is shown, ``replacement`` replaces the token being completed."""

    label: str
    replacement: str
    detail: str = ""


@dataclass(frozen=True)
class CompletionRequest:
    """Which token at the cursor is being completed: ``text[start:end]``."""

    start: int
    end: int
    kind: str  # "command" or "file"
    query: str


def token_at(line: str, column: int, whole_text: str) -> CompletionRequest | None:
    """The completable token ending at ``column`` of the cursor's ``line``, if any.

    ``/name`` completes only as the first word of the input; ``@path`` anywhere after a space.
    """
    before = line[:column]
    if whole_text.startswith("/") and "\n" not in whole_text and " " not in before:
        return CompletionRequest(0, column, "command", before[1:])
    match = re.search(r"(?:^|\s)@(\S*)$", before)
    if match:
        start = match.start(1) - 1
        return CompletionRequest(start, column, "file", match.group(1))
    return None


def fuzzy_score(query: str, candidate: str) -> int | None:
    """A score (higher is better) if ``query``'s characters appear in order in ``candidate``."""
    if not query:
        return 0
    q, c = query.lower(), candidate.lower()
    pos, score, last = 0, 0, -2
    for ch in q:
        found = c.find(ch, pos)
        if found < 0:
            return None
        score += 3 if found == last + 1 else 0  # consecutive runs
        score += 2 if found == 0 or c[found - 1] in "/._-" else 0  # word starts
        last, pos = found, found + 1
    name = c.rsplit("/", 1)[-1]
    score += 5 if q in name else 0
    return score * 10 - len(candidate) // 8


def list_project_files(cwd: Path) -> list[str]:
    """Project files relative to ``cwd``: ``rg --files`` (honours .gitignore), else ``os.walk``."""
    try:
        from tools._rg import find_rg

        result = subprocess.run([find_rg(), "--files", "--hidden", "--glob", "!.git"], cwd=cwd,
                                capture_output=True, text=True, timeout=5, check=False)
        if result.returncode in (0, 1):
            return sorted(result.stdout.splitlines())[:MAX_FILES]
    except Exception:  # noqa: BLE001 - no rg (or tools missing): fall back to walking
        pass
    found: list[str] = []
    for root, dirs, files in os.walk(cwd):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
        rel = os.path.relpath(root, cwd)
        for name in files:
            found.append(name if rel == "." else f"{rel}/{name}")
            if len(found) >= MAX_FILES:
                return sorted(found)
    return sorted(found)


class Completer:
    """Completions for the editor; ``commands`` lists (name, description), files are cached."""

    def __init__(self, cwd: Path, commands: Callable[[str], list[tuple[str, str]]]) -> None:
        self.cwd = cwd
        self.commands = commands
        self._files: list[str] | None = None

    def files(self) -> list[str]:
        """The cached file list (computed on first use)."""
        if self._files is None:
            self._files = list_project_files(self.cwd)
        return self._files

    def complete(self, request: CompletionRequest) -> list[Completion]:
        """Candidates for ``request``, best first."""
        if request.kind == "command":
            return [Completion(f"/{name}", f"/{name} ", detail) for name, detail in self.commands(request.query)]
        scored = [(s, f) for f in self.files() if (s := fuzzy_score(request.query, f)) is not None]
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [Completion(f, f"@{f} ") for _, f in scored[:MAX_ITEMS]]
