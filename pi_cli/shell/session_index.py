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
from typing import Any

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
_ENTRY_LINE = re.compile(
    rb'^\{"type":"([a-z_]+)","id":"([0-9a-f]+)","parentId":(?:null|"([0-9a-f]+)")[^\n]*\}\n',
    re.MULTILINE,
)


class Scan:
    """Accumulates the index while ``SessionStore.open`` reads the file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.header: SessionHeader | None = None
        self.entries: dict[str, EntryRef] = {}
        self.order: list[str] = []
        self.warnings: list[str] = []
        self.line_no = 0

    def lines(self, data: bytes, base: int, end: int) -> None:
        """Index the complete lines ``data[:end]`` (``base`` = file offset of ``data[0]``)."""
        entries, order = self.entries, self.order
        position = 0
        fast = len(order)
        for match in _ENTRY_LINE.finditer(data, 0, end):
            start = match.start()
            if start != position:  # lines the fast pattern did not take
                self.line_no += len(order) - fast
                self.slow(data[position:start], base + position)
                fast = len(order)
            kind, raw_id, parent = match.groups()
            entry_id = raw_id.decode()
            stop = match.end()
            entries[entry_id] = EntryRef(
                entry_id,
                parent.decode() if parent else None,
                kind.decode(),
                base + start,
                stop - start,
            )
            order.append(entry_id)
            position = stop
        self.line_no += len(order) - fast
        if position != end:
            self.slow(data[position:end], base + position)

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
            elif line.strip():
                self.warnings.append(f"{self.path.name}: skipped unreadable line {self.line_no}")
            start = end


@dataclass
class SessionHeader:
    """The first line of a session file."""

    id: str
    cwd: str
    timestamp: str
    parent_session: str | None = None

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
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    if data.get("type") == "session" and "id" in data:
        return SessionHeader(
            id=str(data["id"]),
            cwd=str(data.get("cwd", "")),
            timestamp=str(data.get("timestamp", "")),
            parent_session=data.get("parentSession"),
        )
    if isinstance(data.get("id"), str) and isinstance(data.get("type"), str):
        return EntryRef(data["id"], data.get("parentId"), data["type"], offset, length)
    return None
