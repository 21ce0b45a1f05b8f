"""A unified diff as ``git diff`` writes it, parsed into files and hunks.

Hand-written: git's patch format is small and its corner cases are ours to get right — renames
and copies (``rename from``/``rename to``, no hunks when the content is the same), binary files
(``Binary files a/x and b/x differ``), C-quoted paths (``"a/t\\303\\251st"``), CRLF content (the
``\\r`` belongs to the line, never a line break), ``\\ No newline at end of file``, deleted and
new files (``/dev/null``). Lines are split on ``\\n`` only (``str.splitlines`` would split on
``\\r``, ``\\x0c``, ``\\x1c`` ... inside a line).

A finding names new-side lines (the file as it is after the change); :meth:`DiffFile.hunk_for`
tells which hunk covers them, so a finding outside the diff is reported as such.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
_ESCAPES = {"a": "\a", "b": "\b", "t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r"}


@dataclass
class Hunk:
    """One ``@@ -a,b +c,d @@`` block: its ranges and its lines (with their ``+ -`` marks)."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    header: str
    lines: list[str] = field(default_factory=list)

    @property
    def new_end(self) -> int:
        """The last new-side line the hunk shows (its start when it only deletes)."""
        return self.new_start + max(self.new_count, 1) - 1

    def covers(self, start: int, end: int) -> bool:
        """The new-side lines ``start..end`` overlap this hunk."""
        return start <= self.new_end and end >= self.new_start

    def numbered(self) -> list[tuple[int | None, int | None, str]]:
        """(old line, new line, text with its mark) for each line of the hunk."""
        old, new = self.old_start, self.new_start
        out: list[tuple[int | None, int | None, str]] = []
        for line in self.lines:
            mark = line[:1]
            if mark == "+":
                out.append((None, new, line))
                new += 1
            elif mark == "-":
                out.append((old, None, line))
                old += 1
            elif mark == "\\":
                out.append((None, None, line))
            else:
                out.append((old, new, line))
                old += 1
                new += 1
        return out


@dataclass
class DiffFile:
    """One file of a diff."""

    path: str
    """The path after the change (before it, for a deleted file)."""
    old_path: str | None = None
    """The path before a rename or copy."""
    status: str = "modified"
    """``added``, ``deleted``, ``modified``, ``renamed``, ``copied`` or ``mode`` (mode only)."""
    binary: bool = False
    hunks: list[Hunk] = field(default_factory=list)
    header: list[str] = field(default_factory=list)

    @property
    def additions(self) -> int:
        """Lines added."""
        return sum(1 for h in self.hunks for line in h.lines if line.startswith("+"))

    @property
    def deletions(self) -> int:
        """Lines deleted."""
        return sum(1 for h in self.hunks for line in h.lines if line.startswith("-"))

    @property
    def size(self) -> int:
        """Lines of patch text (what a chunk of the review is measured in)."""
        return len(self.header) + sum(1 + len(h.lines) for h in self.hunks)

    def hunk_for(self, start: int, end: int) -> Hunk | None:
        """The first hunk the new-side lines ``start..end`` overlap, if any."""
        return next((h for h in self.hunks if h.covers(start, end)), None)

    def text(self) -> str:
        """The file's patch, as git wrote it."""
        parts = list(self.header)
        for hunk in self.hunks:
            parts.append(hunk.header)
            parts.extend(hunk.lines)
        return "\n".join(parts) + "\n"


def unquote(path: str) -> str:
    """A path as git writes it in a patch header: C-quoted when it has special bytes."""
    if len(path) < 2 or not (path.startswith('"') and path.endswith('"')):
        return path
    body, raw, index = path[1:-1], bytearray(), 0
    while index < len(body):
        char = body[index]
        if char != "\\" or index + 1 >= len(body):
            raw.extend(char.encode("utf-8", "surrogateescape"))
            index += 1
            continue
        nxt = body[index + 1]
        if nxt in "01234567" and index + 3 < len(body) + 1:
            digits = body[index + 1 : index + 4]
            if len(digits) == 3 and all(d in "01234567" for d in digits):
                raw.append(int(digits, 8) & 0xFF)
                index += 4
                continue
        raw.extend(_ESCAPES.get(nxt, nxt).encode("utf-8", "surrogateescape"))
        index += 2
    return raw.decode("utf-8", "replace")


def _strip_prefix(path: str) -> str | None:
    path = unquote(path.rstrip("\t"))
    if path == "/dev/null":
        return None
    return path[2:] if path[:2] in ("a/", "b/") else path


def _git_line_paths(line: str) -> tuple[str | None, str | None]:
    """(old, new) from ``diff --git a/x b/x`` (exact only when both are quoted or equal)."""
    rest = line[len("diff --git ") :]
    if rest.startswith('"'):
        end = rest.find('" ', 1)
        while end != -1 and rest[end - 1] == "\\":
            end = rest.find('" ', end + 1)
        if end != -1:
            return _strip_prefix(rest[: end + 1]), _strip_prefix(rest[end + 2 :])
    half = (len(rest) - 1) // 2
    if rest[half : half + 1] == " " and rest[2:half] == rest[half + 3 :]:
        return _strip_prefix(rest[:half]), _strip_prefix(rest[half + 1 :])
    parts = rest.split(" b/", 1)
    return _strip_prefix(parts[0]), _strip_prefix("b/" + parts[1]) if len(parts) > 1 else None


class _Parser:
    def __init__(self) -> None:
        self.files: list[DiffFile] = []
        self.file: DiffFile | None = None
        self.hunk: Hunk | None = None
        self.left = (0, 0)  # old and new lines still expected in the hunk

    def feed(self, line: str) -> None:
        if self.hunk is not None and (self.left[0] > 0 or self.left[1] > 0 or line[:1] == "\\"):
            if self._hunk_line(line):
                return
        self.hunk = None
        if line.startswith("diff --git ") or (line.startswith("diff --cc ")):
            old, new = _git_line_paths(line) if line.startswith("diff --git ") else (None, None)
            self.file = DiffFile(path=new or old or line.split()[-1], header=[line])
            self.file.old_path = old if old != new else None
            self.files.append(self.file)
            return
        if self.file is None:
            return  # text before the first file (a commit message): not the diff
        match = _HUNK.match(line)
        if match:
            old_count = int(match.group(2)) if match.group(2) is not None else 1
            new_count = int(match.group(4)) if match.group(4) is not None else 1
            self.hunk = Hunk(int(match.group(1)), old_count, int(match.group(3)), new_count, line)
            self.file.hunks.append(self.hunk)
            self.left = (old_count, new_count)
            return
        self._header(self.file, line)

    def _hunk_line(self, line: str) -> bool:
        assert self.hunk is not None
        old, new = self.left
        mark = line[:1]
        if mark == "+" and new > 0:
            self.left = (old, new - 1)
        elif mark == "-" and old > 0:
            self.left = (old - 1, new)
        elif mark in (" ", "") and old > 0 and new > 0:
            line = line or " "  # an empty context line some tools trim
            self.left = (old - 1, new - 1)
        elif mark != "\\":
            return False
        self.hunk.lines.append(line)
        return True

    def _header(self, file: DiffFile, line: str) -> None:
        file.header.append(line)
        if line.startswith("new file mode"):
            file.status = "added"
        elif line.startswith("deleted file mode"):
            file.status = "deleted"
        elif line.startswith(("rename from ", "copy from ")):
            file.old_path = unquote(line.split(" ", 2)[2])
            file.status = "renamed" if line.startswith("rename") else "copied"
        elif line.startswith(("rename to ", "copy to ")):
            file.path = unquote(line.split(" ", 2)[2])
        elif line.startswith("Binary files ") or line == "GIT binary patch":
            file.binary = True
        elif line.startswith("--- "):
            old = _strip_prefix(line[4:])
            if old is None:
                file.status = "added"
        elif line.startswith("+++ "):
            new = _strip_prefix(line[4:])
            if new is None:
                file.status = "deleted"
                file.path = file.old_path or file.path
                file.old_path = None
            else:
                file.path = new


def parse_diff(text: str) -> list[DiffFile]:
    """The files of ``git diff`` output (anything before the first ``diff --git`` is skipped)."""
    parser = _Parser()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for line in lines:
        parser.feed(line)
    for file in parser.files:
        if file.status == "modified" and not file.hunks and not file.binary:
            file.status = "mode"
        if file.status == "deleted" and file.old_path:
            file.path, file.old_path = file.old_path, None
    return parser.files


def split_chunks(files: list[DiffFile], max_lines: int) -> list[list[DiffFile]]:
    """Files grouped into chunks of at most ``max_lines`` patch lines, in order; a file larger
    than that is split between its hunks (each part keeps the file's header)."""
    chunks: list[list[DiffFile]] = []
    current: list[DiffFile] = []
    size = 0
    for file in files:
        for part in _parts(file, max_lines):
            if current and size + part.size > max_lines:
                chunks.append(current)
                current, size = [], 0
            current.append(part)
            size += part.size
    if current:
        chunks.append(current)
    return chunks


def _parts(file: DiffFile, max_lines: int) -> list[DiffFile]:
    if file.size <= max_lines:
        return [file]
    room = max(max_lines - len(file.header) - 1, 10)
    parts: list[DiffFile] = []
    hunks: list[Hunk] = []
    size = len(file.header)
    for hunk in (piece for whole in file.hunks for piece in split_hunk(whole, room)):
        if hunks and size + 1 + len(hunk.lines) > max_lines:
            parts.append(_with_hunks(file, hunks))
            hunks, size = [], len(file.header)
        hunks.append(hunk)
        size += 1 + len(hunk.lines)
    parts.append(_with_hunks(file, hunks))
    return parts


def _with_hunks(file: DiffFile, hunks: list[Hunk]) -> DiffFile:
    return DiffFile(file.path, file.old_path, file.status, file.binary, hunks, file.header)


def split_hunk(hunk: Hunk, max_lines: int) -> list[Hunk]:
    """``hunk`` as pieces of at most ``max_lines`` lines, each with its own true ranges (a
    reviewer reads a 5,000-line hunk in parts; findings are still placed on the whole)."""
    if len(hunk.lines) <= max_lines:
        return [hunk]
    numbered = hunk.numbered()
    pieces: list[Hunk] = []
    old, new = hunk.old_start, hunk.new_start
    for start in range(0, len(numbered), max_lines):
        rows = numbered[start : start + max_lines]
        olds = sum(1 for o, _, _ in rows if o is not None)
        news = sum(1 for _, n, _ in rows if n is not None)
        header = f"@@ -{old},{olds} +{new},{news} @@ (part of {hunk.header.split(' @@')[0]} @@)"
        pieces.append(Hunk(old, olds, new, news, header, [line for _, _, line in rows]))
        old, new = old + olds, new + news
    return pieces
