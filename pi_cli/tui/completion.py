"""Completion sources for the editor: ``/`` slash commands, their arguments (a command that
offers candidates, e.g. an extension's), and ``@`` project files (fuzzy)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MAX_ITEMS = 12
MAX_FILES = 20_000
LIST_TIME_LIMIT_S = 5.0
_SKIP_DIRS = {
    ".git",
    "node_modules",
    "__pycache__",
    ".venv",
    "venv",
    ".mypy_cache",
    ".pytest_cache",
}


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
    kind: str  # "command", "argument" or "file"
    query: str
    command: str = ""  # an argument's command


def token_at(line: str, column: int, whole_text: str) -> CompletionRequest | None:
    """The completable token ending at ``column`` of the cursor's ``line``, if any.

    ``/name`` completes only as the first word of the input, then its argument; ``@path``
    anywhere after a space.
    """
    before = line[:column]
    if whole_text.startswith("/") and "\n" not in whole_text and " " not in before:
        return CompletionRequest(0, column, "command", before[1:])
    if whole_text.startswith("/") and "\n" not in whole_text and "@" not in before:
        name, _, typed = before[1:].partition(" ")
        return CompletionRequest(len(name) + 2, column, "argument", typed, name)
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


def _rg_files(cwd: Path, stop: threading.Event, deadline: float) -> list[str] | None:
    """``rg --files`` (honours .gitignore), read only up to :data:`MAX_FILES` lines; None if no rg."""
    try:
        from tools import find_rg

        command = [find_rg(), "--files", "--hidden", "--glob", "!.git"]
        proc = subprocess.Popen(
            command,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            errors="replace",
        )
    except Exception:  # noqa: BLE001 - no rg (or tools missing): the caller walks instead
        return None
    found: list[str] = []
    assert proc.stdout is not None
    with proc.stdout:
        try:
            # Iterate instead of waiting for the whole listing: in a huge tree (/usr) rg would
            # print far more than we keep.
            for line in proc.stdout:
                found.append(line.rstrip("\n"))
                if len(found) >= MAX_FILES or stop.is_set() or time.monotonic() > deadline:
                    break
        finally:
            proc.kill()
            returncode = proc.wait()
    if not found and returncode not in (0, 1, -signal.SIGKILL):
        return None  # rg failed: walk instead
    return found


def list_project_files(cwd: Path, stop: threading.Event | None = None) -> list[str]:
    """Project files relative to ``cwd``, sorted: ``rg --files``, else ``os.walk``.

    Slow in big trees: call it in a thread. It gives up after :data:`MAX_FILES` files,
    :data:`LIST_TIME_LIMIT_S` seconds, or when ``stop`` is set (the app is closing).
    """
    stop = stop or threading.Event()
    deadline = time.monotonic() + LIST_TIME_LIMIT_S
    found = _rg_files(cwd, stop, deadline)
    if found is not None:
        return sorted(found)
    found = []
    for root, dirs, files in os.walk(cwd):
        dirs[:] = [d for d in dirs if d not in _SKIP_DIRS]
        rel = os.path.relpath(root, cwd)
        for name in files:
            found.append(name if rel == "." else f"{rel}/{name}")
        if len(found) >= MAX_FILES or stop.is_set() or time.monotonic() > deadline:
            break
    return sorted(found[:MAX_FILES])


class Completer:
    """Completions for the editor; ``commands`` lists (name, description).

    Project files are listed once by :meth:`load_files`, which the editor runs in a thread:
    until it is done, ``@`` has no candidates (rather than freezing the UI on a big tree).
    """

    def __init__(
        self,
        cwd: Path,
        commands: Callable[[str], list[tuple[str, str]]],
        arguments: Callable[[str, str], list[tuple[str, str]]] | None = None,
    ) -> None:
        self.cwd = cwd
        self.commands = commands
        self.arguments = arguments
        self._files: list[str] | None = None
        self.stop = threading.Event()  # set when the app closes: stop listing

    @property
    def files_ready(self) -> bool:
        """True once the file list is loaded."""
        return self._files is not None

    def load_files(self) -> None:
        """List the project files (slow: run in a thread)."""
        self._files = list_project_files(self.cwd, self.stop)

    def files(self) -> list[str]:
        """The file list; empty until :meth:`load_files` finished."""
        return self._files or []

    def complete(self, request: CompletionRequest) -> list[Completion]:
        """Candidates for ``request``, best first."""
        if request.kind == "command":
            return [
                Completion(f"/{name}", f"/{name} ", detail)
                for name, detail in self.commands(request.query)
            ]
        if request.kind == "argument":
            found = self.arguments(request.command, request.query) if self.arguments else []
            return [Completion(value, f"{value} ", detail) for value, detail in found[:MAX_ITEMS]]
        scored = [(s, f) for f in self.files() if (s := fuzzy_score(request.query, f)) is not None]
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [Completion(f, f"@{f} ") for _, f in scored[:MAX_ITEMS]]
