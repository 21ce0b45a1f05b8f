"""``@path`` imports in AGENTS.md / CLAUDE.md, as Claude Code documents them, fenced in.

A token ``@path`` (at the start of a line or after whitespace; not inside a code span or a
fenced or indented code block) imports that file: relative to the importing file, ``~/`` for
the home directory, or absolute. Imported files may import others, down to
:data:`MAX_DEPTH` hops; a file already loaded is not loaded again (cycles stop). A token that
names no regular file (``@types/node``, ``@someone``, an e-mail address) stays literal text.

An import is followed only inside its scope: the project (its git root, else the working
directory) for project files, ``PI_HOME`` for the global file. So ``@~/.ssh/id_rsa`` or
``@../.env`` in a cloned repository's CLAUDE.md never reaches the model; symlinks are resolved
before the check. Until projects can be trusted, nothing outside is followed (the caller may
pass ``allow_outside``); each refusal is a notice naming the file, line and reason. Binary
files are refused, one import is cut at :data:`MAX_IMPORT_BYTES` and all imports together stop
at :data:`MAX_TOTAL_BYTES`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

MAX_DEPTH = 5
MAX_IMPORT_BYTES = 64 * 1024
MAX_TOTAL_BYTES = 256 * 1024
_TOKEN = re.compile(r"(?<!\S)@((?:\\ |[^\s])+)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TRAILING = ".,;:!?)]}>\"'"
OUTSIDE_REASON = (
    "it is outside the project, and imports from outside are followed only in a trusted "
    "project (project trust is not available yet)"
)


@dataclass
class Imported:
    """One imported file, in the order it is to be shown (after the file importing it)."""

    path: Path
    content: str
    imported_by: Path


@dataclass
class ImportState:
    """What all imports of one shell share: files seen, bytes used, notices."""

    seen: set[Path] = field(default_factory=set)
    used: int = 0
    notices: list[str] = field(default_factory=list)


def import_tokens(text: str) -> list[tuple[int, str]]:
    """``(line number, token)`` of each ``@token`` outside code spans and code blocks."""
    found: list[tuple[int, str]] = []
    fence: str | None = None
    previous_blank = True
    in_indented = False
    for number, line in enumerate(text.splitlines(), start=1):
        marker = _FENCE.match(line)
        if fence is not None:
            if marker and marker.group(1)[0] == fence[0] and len(marker.group(1)) >= len(fence):
                fence = None
            continue
        if marker:
            fence = marker.group(1)
            continue
        indented = line.startswith(("    ", "\t")) and bool(line.strip())
        in_indented = indented and (previous_blank or in_indented)
        previous_blank = not line.strip()
        if in_indented:
            continue
        for match in _TOKEN.finditer(_blank_code_spans(line)):
            found.append((number, match.group(1)))
    return found


def _blank_code_spans(line: str) -> str:
    """``line`` with the content of each `` `code span` `` replaced by spaces."""
    out = list(line)
    index = 0
    while (start := line.find("`", index)) >= 0:
        run = len(line) - len(line[start:].lstrip("`"))
        ticks = line[start:run]
        end = line.find(ticks, run)
        while end >= 0 and line[end + len(ticks) : end + len(ticks) + 1] == "`":
            end = line.find(ticks, end + len(ticks) + 1)
        if end < 0:
            break
        out[start : end + len(ticks)] = " " * (end + len(ticks) - start)
        index = end + len(ticks)
    return "".join(out)


def _candidates(token: str, base: Path) -> list[Path]:
    raw = token.replace("\\ ", " ")
    options = [raw]
    stripped = raw.rstrip(_TRAILING)
    if stripped and stripped != raw:
        options.append(stripped)
    paths: list[Path] = []
    for option in options:
        if option.startswith("~/"):
            paths.append(Path.home() / option[2:])
        elif option.startswith("/"):
            paths.append(Path(option))
        elif not option.startswith("~"):
            paths.append(base / option)
    return paths


def _inside(path: Path, scope: Path) -> bool:
    return path == scope or scope in path.parents


def _read(path: Path, where: str, state: ImportState) -> str | None:
    """The text to include, or ``None`` (with a notice) when the file must not be."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_IMPORT_BYTES + 1)
        size = path.stat().st_size
    except OSError as exc:
        state.notices.append(f"{where} not followed: cannot read it ({exc.strerror or exc})")
        return None
    if b"\0" in data:
        state.notices.append(f"{where} not followed: it is a binary file")
        return None
    cut = len(data) > MAX_IMPORT_BYTES
    data = data[:MAX_IMPORT_BYTES]
    try:
        text = data.decode("utf-8") if not cut else data.decode("utf-8", "ignore")
    except UnicodeDecodeError:
        state.notices.append(f"{where} not followed: it is not UTF-8 text (binary?)")
        return None
    room = MAX_TOTAL_BYTES - state.used
    if room <= 0:
        state.notices.append(
            f"{where} not followed: imports already hold {MAX_TOTAL_BYTES // 1024} KiB in total"
        )
        return None
    if len(text.encode()) > room:
        text, cut = text.encode()[:room].decode("utf-8", "ignore"), True
    state.used += len(text.encode())
    if cut:
        state.notices.append(f"{where} cut to {len(text.encode())} of {size} bytes (size limit)")
        note = f"\n\n[Import truncated: {path} has {size} bytes]"
        state.used += len(note.encode())
        text += note
    return text


def resolve_imports(
    path: Path,
    content: str,
    scope: Path,
    state: ImportState,
    allow_outside: Callable[[Path], bool] | None = None,
    depth: int = 0,
) -> list[Imported]:
    """The files ``content`` (the text of ``path``) imports, depth first, each after its importer."""
    found: list[Imported] = []
    scope = scope.resolve()
    for line, token in import_tokens(content):
        target = next((p for p in _candidates(token, path.parent) if p.is_file()), None)
        if target is None:
            continue  # not a file: the token stays literal text
        target = Path(os.path.normpath(target))
        where = f"{path}:{line}: @{token}"
        resolved = target.resolve()
        if resolved in state.seen:
            continue  # already loaded (a cycle, or a context file itself)
        if not _inside(resolved, scope) and not (allow_outside and allow_outside(resolved)):
            state.notices.append(f"{where} not followed: {OUTSIDE_REASON}")
            continue
        if depth + 1 > MAX_DEPTH:
            state.notices.append(f"{where} not followed: imports nest deeper than {MAX_DEPTH}")
            continue
        text = _read(resolved, where, state)
        if text is None:
            continue
        state.seen.add(resolved)
        found.append(Imported(target, text, path))
        found += resolve_imports(target, text, scope, state, allow_outside, depth + 1)
    return found
