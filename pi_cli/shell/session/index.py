"""The index of a session file: its header and where each entry's line is.

A regex over each chunk picks the id, parent id and type of every well-formed entry line
without parsing its JSON; other lines (the header, hand-edited or corrupt ones) take the slow
per-line path.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

SESSION_VERSION = 1
_ENTRY_PREFIX = re.compile(
    rb'^\{"type":"([a-z_]+)","id":"([0-9a-f]+)","parentId":(?:null|"([0-9a-f]+)")'
)


@dataclass(slots=True)
class EntryRef:
    """Where one entry lives in the file."""

    id: str
    parent_id: str | None
    type: str
    offset: int
    length: int


CHUNK = 8 * 1024 * 1024
DAMAGED = "damaged"
"""The type given to an unreadable line whose id and parent could still be read: it carries no
content, but the tree goes on over it (its children keep their parent)."""
SIDECAR_TYPES = frozenset({b"partial", b"queue"})
"""Entry types that are no tree nodes (see :mod:`pi_cli.shell.session.entries`)."""
_ENTRY_LINE = re.compile(
    rb'^\{"type":"([a-z_]+)","id":"([0-9a-f]+)","parentId":(?:null|"([0-9a-f]+)")[^\n]*\}\n',
    re.MULTILINE,
)


class Scan:
    """Accumulates the index while ``SessionStore.open`` reads the file.

    ``partial`` entries (an answer still streaming) are no tree nodes: they are kept apart,
    by the entry they will attach under, and dropped once an entry attaches there.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: SessionHeader | None = None
        self.entries: dict[str, EntryRef] = {}
        self.order: list[str] = []
        self.partials: dict[str | None, list[EntryRef]] = {}
        self.sidecars: dict[str, EntryRef] = {}  # the newest of each other sidecar type
        self.warnings: list[str] = []
        self.damaged: dict[str, str] = {}  # id -> the type its unreadable line said it was
        self.damaged_partials: dict[str, list[EntryRef]] = {}  # a damaged answer's partials
        self.line_no = 0
        self._moved = 0  # partial entries taken out of ``order`` (line counting)

    def read(self, handle: BinaryIO) -> int:
        """Index a whole file, read in chunks; returns its size."""
        carry = b""
        base = 0  # file offset of carry[0]
        while chunk := handle.read(CHUNK):
            data = carry + chunk if carry else chunk
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                carry = data
                continue
            self.lines(data, base, cut)
            carry = data[cut:]
            base += cut
        if carry:
            self.slow(carry, base)
        return base + len(carry)

    def _partial(self, ref: EntryRef) -> None:
        """Move a just-indexed ``partial`` entry out of the tree."""
        self._untree(ref)
        self.partials.setdefault(ref.parent_id, []).append(ref)

    def _untree(self, ref: EntryRef) -> None:
        if self.entries.get(ref.id) is ref:
            del self.entries[ref.id]
        self.order.pop()
        self._moved += 1

    def lines(self, data: bytes, base: int, end: int) -> None:
        """Index the complete lines ``data[:end]`` (``base`` = file offset of ``data[0]``)."""
        entries, order = self.entries, self.order
        position = 0
        fast = len(order) + self._moved
        for match in _ENTRY_LINE.finditer(data, 0, end):
            start = match.start()
            if start != position:  # lines the fast pattern did not take
                self.line_no += len(order) + self._moved - fast
                self.slow(data[position:start], base + position)
                fast = len(order) + self._moved
            kind, raw_id, parent = match.groups()
            entry_id = raw_id.decode()
            stop = match.end()
            ref = EntryRef(
                entry_id,
                parent.decode() if parent else None,
                kind.decode(),
                base + start,
                stop - start,
            )
            entries[entry_id] = ref
            order.append(entry_id)
            position = stop
            if self.partials or kind in SIDECAR_TYPES:  # rare: an answer was streaming
                self._route(ref)
        self.line_no += len(order) + self._moved - fast
        if position != end:
            self.slow(data[position:end], base + position)

    def _route(self, ref: EntryRef) -> None:
        if ref.type == "partial":
            self._partial(ref)
        elif ref.type.encode() in SIDECAR_TYPES:
            self._untree(ref)
            self.sidecars[ref.type] = ref
        else:
            self.partials.pop(ref.parent_id, None)  # the answer (or another entry) arrived

    def slow(self, block: bytes, offset: int) -> None:
        """Index ``block`` line by line with a JSON parse (header, odd or corrupt lines)."""
        start = 0
        while start < len(block):
            newline = block.find(b"\n", start)
            end = len(block) if newline == -1 else newline + 1
            line = block[start:end]
            self.line_no += 1
            ref = index_line(
                line.rstrip(b"\r\n"), offset + start, len(line), complete=newline != -1
            )
            if isinstance(ref, SessionHeader):
                if self.header is None:
                    self.header = ref
            elif isinstance(ref, EntryRef):
                self.entries[ref.id] = ref
                self.order.append(ref.id)
                if self.partials or ref.type.encode() in SIDECAR_TYPES:
                    self._route(ref)
            elif line.strip():
                self._damaged(line, offset + start)
            start = end

    def _damaged(self, line: bytes, offset: int) -> None:
        """An unreadable line: skipped, but if its id and parent can be read it stays a link."""
        where = f"{self.path.name}: skipped unreadable line {self.line_no}"
        match = _ENTRY_PREFIX.match(line)
        kind = match.group(1) if match else b""
        if match is None or kind in SIDECAR_TYPES or match.group(2).decode() in self.entries:
            self.warnings.append(where)
            return
        parent = match.group(3).decode() if match.group(3) else None
        ref = EntryRef(match.group(2).decode(), parent, DAMAGED, offset, len(line))
        self.entries[ref.id] = ref
        self.order.append(ref.id)
        self.damaged[ref.id] = kind.decode()
        pending = self.partials.pop(parent, None)
        if pending and kind == b"message":  # what had streamed of this very answer
            self.damaged_partials[ref.id] = pending
        self.warnings.append(
            f"{where} ({kind.decode()} entry {ref.id}); the entries after it stay linked"
        )


@dataclass
class SessionHeader:
    """The first line of a session file."""

    id: str
    cwd: str
    timestamp: str
    parent_session: str | None = None
    version: int = SESSION_VERSION

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": "session",
            "version": SESSION_VERSION,
            "id": self.id,
            "timestamp": self.timestamp,
            "cwd": self.cwd,
        }
        if self.parent_session:
            data["parentSession"] = self.parent_session
        return data


def index_line(
    line: bytes, offset: int, length: int, *, complete: bool
) -> SessionHeader | EntryRef | None:
    match = _ENTRY_PREFIX.match(line)
    if match and complete and line.endswith(b"}"):
        parent = match.group(3)
        return EntryRef(
            match.group(2).decode(),
            parent.decode() if parent else None,
            match.group(1).decode(),
            offset,
            length,
        )
    try:
        data = json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    if data.get("type") == "session" and "id" in data:
        version = data.get("version")
        return SessionHeader(
            id=str(data["id"]),
            cwd=str(data.get("cwd", "")),
            timestamp=str(data.get("timestamp", "")),
            parent_session=data.get("parentSession")
            if isinstance(data.get("parentSession"), str)
            else None,
            version=version if isinstance(version, int) else SESSION_VERSION,
        )
    parent = data.get("parentId")
    if isinstance(data.get("id"), str) and isinstance(data.get("type"), str):
        return EntryRef(
            data["id"], parent if isinstance(parent, str) else None, data["type"], offset, length
        )
    return None


_NAME_ID = re.compile(r"_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$")


def stand_in_header(scan: Scan) -> SessionHeader | None:
    """When the header line is unreadable but entries are not: a header from the file's name
    (``<time>_<session id>.jsonl``), said in a warning; None when nothing in the file is pi's."""
    if scan.header is not None or not scan.entries:
        return scan.header
    match = _NAME_ID.search(scan.path.name)
    session_id = match.group(1) if match else scan.path.stem
    scan.warnings.append(
        f"{scan.path.name}: line 1 (the session header) is unreadable; the session id is taken "
        "from the file name and its working directory is unknown"
    )
    return SessionHeader(id=session_id, cwd="", timestamp="")
