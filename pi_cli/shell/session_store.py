"""Append-only JSONL session files, indexed by byte offset.

Layout: a header line, then one entry per line. Every entry has ``id`` and ``parentId``, so the
file is a tree; the *leaf* is the entry new entries attach to (the last one written, unless the
user moved it with /tree). Each line is flushed as it is written, so a crash loses at most the
entry being written; a corrupt or truncated line is skipped with a warning on load.

Loading scans the file once and keeps only ``(id, parentId, type, offset, length)`` per entry;
entries are parsed when needed, so resuming a large session does not parse it all.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_core import Message, message_from_wire, to_wire
from pi_cli.shell.bash_messages import bash_message_from_wire
from pi_cli.shell.jsonl import dumps_line
from pi_cli.shell.paths import sessions_dir
from pi_cli.shell.session_index import CHUNK, EntryRef, Scan, SessionHeader

__all__ = ["EntryRef", "SessionError", "SessionHeader", "SessionStore"]


class SessionError(Exception):
    """A session file cannot be found or opened."""


def _iso_now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _new_entry_id(existing: dict[str, EntryRef]) -> str:
    while True:
        candidate = uuid.uuid4().hex[:8]
        if candidate not in existing:
            return candidate


@dataclass
class SessionStore:
    """One session: its file (or none with ``--no-session``), index and leaf."""

    header: SessionHeader
    path: Path | None
    entries: dict[str, EntryRef] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    leaf_id: str | None = None
    warnings: list[str] = field(default_factory=list)
    _memory: dict[str, dict[str, Any]] = field(default_factory=dict)
    _written_header: bool = False
    _needs_newline: bool = False
    persist: bool = True  # False: an opened file is only read; new entries stay in memory
    write_error: str | None = None  # set once a write failed; later entries stay in memory

    # ------------------------------------------------------------------ creation

    @classmethod
    def create(
        cls,
        cwd: Path,
        *,
        persist: bool = True,
        directory: Path | None = None,
        parent_session: str | None = None,
    ) -> SessionStore:
        """A new session for ``cwd``; the file is written on the first entry."""
        session_id = str(uuid.uuid4())
        stamp = _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H-%M-%S-%f")[:-3] + "Z"
        path = None
        if persist:
            path = (directory or sessions_dir(cwd)) / f"{stamp}_{session_id}.jsonl"
        header = SessionHeader(
            id=session_id, cwd=str(cwd), timestamp=_iso_now(), parent_session=parent_session
        )
        return cls(header=header, path=path)

    @classmethod
    def open(cls, path: Path, *, persist: bool = True) -> SessionStore:
        """Index an existing session file; corrupt lines are skipped with a warning.

        With ``persist=False`` (``--no-session`` with ``-c``/``--session``) the file is only
        read: new entries are kept in memory and the file is never appended to.

        The file is read once, in chunks: a regex over each chunk picks the id, parent id and
        type of every well-formed entry line without parsing its JSON, so a 100 MB session
        indexes in a fraction of a second with bounded memory. Other lines (the header,
        hand-edited or corrupt ones) take the slow per-line path.
        """
        try:
            handle = path.open("rb")
        except OSError as exc:
            raise SessionError(f"Cannot open session {path}: {exc.strerror or exc}") from None
        scan = Scan(path)
        with handle:
            carry = b""
            base = 0  # file offset of carry[0]
            while chunk := handle.read(CHUNK):
                data = carry + chunk if carry else chunk
                cut = data.rfind(b"\n") + 1
                if cut == 0:
                    carry = data
                    continue
                scan.lines(data, base, cut)
                carry = data[cut:]
                base += cut
            if carry:
                scan.slow(carry, base)
        if scan.header is None:
            raise SessionError(f"{path} is not a pi session file (no header line)")
        store = cls(header=scan.header, path=path, persist=persist)
        store.entries, store.order, store.warnings = scan.entries, scan.order, scan.warnings
        store.leaf_id = scan.order[-1] if scan.order else None
        store._written_header = True
        store._needs_newline = bool(carry) and not carry.endswith(b"\n")
        return store

    # ------------------------------------------------------------------ writing

    @property
    def session_id(self) -> str:
        """The session's id."""
        return self.header.id

    def append(self, entry_type: str, **fields: Any) -> str:
        """Append an entry under the current leaf; returns its id (which becomes the leaf)."""
        entry_id = _new_entry_id(self.entries)
        data: dict[str, Any] = {
            "type": entry_type,
            "id": entry_id,
            "parentId": self.leaf_id,
            "timestamp": _iso_now(),
            **fields,
        }
        line = dumps_line(data)
        offset = 0
        if self.path is not None and self.persist and self.write_error is None:
            try:
                offset = self._write(line)
            except OSError as exc:
                # Disk full, PI_HOME/sessions is a file...: keep going unsaved rather than lose
                # the entry (and the event that carried it); the shell tells the user once.
                self.write_error = f"Cannot save session to {self.path}: {exc.strerror or exc}; continuing unsaved."
                self._memory[entry_id] = data
        else:
            self._memory[entry_id] = data
        self.entries[entry_id] = EntryRef(entry_id, self.leaf_id, entry_type, offset, len(line))
        self.order.append(entry_id)
        self.leaf_id = entry_id
        return entry_id

    def append_message(self, message: Message) -> str:
        """Persist one message (secrets never live in messages)."""
        return self.append("message", message=to_wire(message))

    def _write(self, line: bytes) -> int:
        assert self.path is not None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("ab") as handle:
            if not self._written_header:
                handle.write(dumps_line(self.header.to_json()))
                self._written_header = True
            elif self._needs_newline:
                handle.write(b"\n")
            self._needs_newline = False
            offset = handle.tell()
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())
        return offset

    def set_leaf(self, entry_id: str | None) -> None:
        """Move the leaf (branching): the next entry attaches under ``entry_id``."""
        if entry_id is not None and entry_id not in self.entries:
            raise SessionError(f"No entry {entry_id} in this session")
        self.leaf_id = entry_id

    # ------------------------------------------------------------------ reading

    def read_entry(self, entry_id: str) -> dict[str, Any] | None:
        """Parse one entry (``None`` if its line is corrupt)."""
        if entry_id in self._memory:
            return self._memory[entry_id]
        ref = self.entries[entry_id]
        if self.path is None:
            return None
        with self.path.open("rb") as handle:
            return self._read_at(handle, ref)

    def _read_at(self, handle: Any, ref: EntryRef) -> dict[str, Any] | None:
        handle.seek(ref.offset)
        try:
            data = json.loads(handle.read(ref.length))
        except (ValueError, UnicodeDecodeError):
            self.warnings.append(f"skipped corrupt entry {ref.id}")
            return None
        return data if isinstance(data, dict) else None

    def path_to(self, entry_id: str | None = None) -> list[EntryRef]:
        """Entries from the root to ``entry_id`` (default: the leaf)."""
        refs: list[EntryRef] = []
        current = entry_id if entry_id is not None else self.leaf_id
        seen: set[str] = set()
        while current is not None and current in self.entries and current not in seen:
            seen.add(current)
            ref = self.entries[current]
            refs.append(ref)
            current = ref.parent_id
        refs.reverse()
        return refs

    def iter_entries(self, refs: list[EntryRef]) -> Iterator[dict[str, Any]]:
        """Parse the given entries, reading the file once in order."""
        if self.path is None or not self._written_header:
            for ref in refs:
                if ref.id in self._memory:
                    yield self._memory[ref.id]
            return
        with self.path.open("rb") as handle:
            for ref in refs:
                # Entries appended read-only or after a failed write live in memory only.
                data = (
                    self._memory[ref.id] if ref.id in self._memory else self._read_at(handle, ref)
                )
                if data is not None:
                    yield data

    def build_context(self) -> list[Message]:
        """The messages on the path to the leaf, starting at the last compaction if any.

        Walks back from the leaf only as far as needed: to the last compaction on the path and
        then to the entry it kept first, so a long session with compactions resumes without
        visiting (or parsing) its whole history.
        """
        refs, compaction = self._context_refs()
        messages: list[Message] = []
        if compaction is not None:
            messages.append(compaction_summary_message(str(compaction.get("summary", ""))))
        wanted = [ref for ref in refs if ref.type == "message"]
        for data in self.iter_entries(wanted):
            try:
                message = entry_message(data)
            except Exception:  # noqa: BLE001 - a bad entry must not make the session unloadable
                self.warnings.append(f"skipped invalid message entry {data.get('id')}")
                continue
            if message is not None:
                messages.append(message)
        return messages

    def _context_refs(self) -> tuple[list[EntryRef], dict[str, Any] | None]:
        """(entries of the context in order, the last compaction entry on the path or None)."""
        refs: list[EntryRef] = []
        compaction: dict[str, Any] | None = None
        compaction_at = -1  # index in refs (reversed order) of the compaction entry
        first_kept: str | None = None
        current = self.leaf_id
        seen: set[str] = set()
        while current is not None and current in self.entries and current not in seen:
            seen.add(current)
            ref = self.entries[current]
            refs.append(ref)
            if compaction is None and ref.type == "compaction":
                entry = next(iter(self.iter_entries([ref])), None)
                if entry is not None:
                    compaction, compaction_at = entry, len(refs) - 1
                    first_kept = entry.get("firstKeptEntryId")
                    if not first_kept:
                        break
            elif compaction is not None and ref.id == first_kept:
                break
            current = ref.parent_id
        else:
            if (
                compaction is not None
            ):  # the kept entry is not an ancestor: start after the compaction
                del refs[compaction_at + 1 :]
        refs.reverse()
        return refs, compaction

    def latest(self, entry_type: str) -> dict[str, Any] | None:
        """The newest entry of ``entry_type`` on the current path."""
        for ref in reversed(self.path_to()):
            if ref.type == entry_type:
                return next(iter(self.iter_entries([ref])), None)
        return None


def entry_message(data: dict[str, Any]) -> Message | None:
    """The message a ``message`` entry puts into the context (``None``: none, e.g. ``!!cmd``).

    pi's ``bashExecution`` records (a command the user ran) become the user message the model
    reads; the others are parsed as they are (raises on an invalid one).
    """
    message = data["message"]
    if isinstance(message, dict) and message.get("role") == "bashExecution":
        return None if message.get("excludeFromContext") else bash_message_from_wire(message)
    return message_from_wire(message)


def compaction_summary_message(summary: str) -> Message:
    """The user message that stands for compacted history."""
    from agent_core import user_message

    return user_message(
        "The conversation history before this point was compacted into the following summary:\n\n"
        f"<summary>\n{summary}\n</summary>"
    )
