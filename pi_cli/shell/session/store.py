"""Append-only JSONL session files, indexed by byte offset.

Layout: a header line, then one entry per line. Every entry has ``id`` and ``parentId``, so the
file is a tree; the *leaf* is the entry new entries attach to (the last one written, unless the
user moved it with /tree). Each line is flushed as it is written, so a crash loses at most the
entry being written; a damaged line costs that line only (:mod:`._repair`).

Loading scans the file once and keeps only ``(id, parentId, type, offset, length)`` per entry;
entries are parsed (and validated, :mod:`.entries`) when needed, so resuming a large session
does not parse it all. Appends are locked (:mod:`._append`): two pi processes on one file never
interleave or lose a line, and each notices the other's entries.
"""

from __future__ import annotations

import datetime as _dt
import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_core import Message, to_wire
from pi_cli.shell.paths import sessions_dir
from pi_cli.shell.session._append import append_line, iso_now, new_entry_id
from pi_cli.shell.session._append import flush_syncs as flush_syncs  # the shell waits on it
from pi_cli.shell.session._context import (
    branch_summary_message,
    compaction_summary_message,
    compaction_summary_of,
    context_refs,
    entry_message,
)
from pi_cli.shell.session._repair import repair
from pi_cli.shell.session.entries import (
    PARTIAL,
    entry_problem,
    first_problem,
    incomplete_message,
    line_number,
    still_streaming,
)
from pi_cli.shell.session.index import (
    SESSION_VERSION,
    EntryRef,
    Scan,
    SessionHeader,
    stand_in_header,
)
from pi_cli.shell.wire.jsonl import dumps_line

__all__ = [
    "EntryRef",
    "SessionError",
    "SessionHeader",
    "SessionStore",
    "compaction_summary_message",
    "compaction_summary_of",
    "entry_message",
]


class SessionError(Exception):
    """A session file cannot be found or opened."""


@dataclass
class SessionStore:
    """One session: its file (or none with ``--no-session``), index and leaf."""

    header: SessionHeader
    path: Path | None
    entries: dict[str, EntryRef] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    leaf_id: str | None = None
    warnings: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)  # for the user once, then cleared
    _memory: dict[str, dict[str, Any]] = field(default_factory=dict)
    _written_header: bool = False
    _size: int | None = None  # the file's size after our last write or scan
    persist: bool = True  # False: an opened file is only read; new entries stay in memory
    write_error: str | None = None  # set once a write failed; later entries stay in memory
    _sidecars: dict[str, dict[str, Any]] = field(default_factory=dict)
    _sidecar_refs: dict[str, EntryRef] = field(default_factory=dict)
    _stand_ins: dict[str, str] = field(default_factory=dict)  # see session._repair

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
            id=session_id, cwd=str(cwd), timestamp=iso_now(), parent_session=parent_session
        )
        return cls(header=header, path=path)

    @classmethod
    def open(cls, path: Path, *, persist: bool = True) -> SessionStore:
        """Index an existing session file (:mod:`.index`, in one pass); a damaged line costs
        that line only (:mod:`._repair`). With ``persist=False`` (``--no-session`` with
        ``-c``/``--session``) the file is only read: new entries stay in memory."""
        try:
            handle = path.open("rb")
        except OSError as exc:
            raise SessionError(f"Cannot open session {path}: {exc.strerror or exc}") from None
        with handle:
            scan = Scan(path)
            size = scan.read(handle)
        header = stand_in_header(scan)
        if header is None:
            raise SessionError(f"{path} is not a pi session file (no header line)")
        store = cls(header=header, path=path, persist=persist)
        repaired = repair(scan.entries, scan.order, path.name)
        store.entries, store.order, store.leaf_id = scan.entries, repaired.order, repaired.leaf
        store.warnings = scan.warnings + repaired.warnings
        store._stand_ins = repaired.stand_ins
        store._sidecar_refs = scan.sidecars
        store._written_header = True
        store._size = size
        if header.version > SESSION_VERSION:
            store.warnings.append(
                f"{path.name} was written by a newer pi (session version "
                f"{header.version}); entries this pi does not know are kept unchanged"
            )
        for anchor, refs in scan.partials.items():
            store._recover_partial(anchor, refs)
        for entry_id, refs in scan.damaged_partials.items():
            store._recover_damaged(entry_id, refs)
        return store

    def _recover_damaged(self, entry_id: str, refs: list[EntryRef]) -> None:
        """An unreadable answer whose text had been saved while it streamed: that text stands
        in for it (in memory; the file is not rewritten), marked incomplete."""
        entries = [e for e in (self.read_entry_at(ref) for ref in refs) if e is not None]
        message = incomplete_message(entries)
        if message is None:
            return
        self.entries[entry_id].type = "message"
        self._memory[entry_id] = {"type": "message", "id": entry_id, "message": message}
        chars = sum(len(b.get("text") or b.get("thinking") or "") for b in message["content"])
        self.warnings.append(
            f"{self.where(self.entries[entry_id])}: the answer in this line is unreadable; the "
            f"{chars} characters saved while it streamed stand in for it, marked incomplete"
        )

    def _recover_partial(self, anchor: str | None, refs: list[EntryRef]) -> None:
        """An answer that never finished (a kill mid-stream): make it a message, incomplete."""
        entries = [e for e in (self.read_entry_at(ref) for ref in refs) if e is not None]
        if entries and still_streaming(entries[-1].get("pid")):
            return  # another pi is writing this answer right now: it will finish it
        message = incomplete_message(entries)
        if message is None or (anchor is not None and anchor not in self.entries):
            return
        chars = sum(len(b.get("text") or b.get("thinking") or "") for b in message["content"])
        self.warnings.append(
            f"{self.path.name if self.path else 'session'}: the last answer was cut off while "
            f"streaming (pi was stopped); the {chars} characters that had arrived are kept, "
            "marked incomplete"
        )
        self._add("message", anchor, {"message": message}, move_leaf=anchor == self.leaf_id)

    # ------------------------------------------------------------------ writing

    @property
    def session_id(self) -> str:
        """The session's id."""
        return self.header.id

    def append(self, entry_type: str, **fields: object) -> str:
        """Append an entry under the current leaf; returns its id (which becomes the leaf)."""
        return self._add(entry_type, self.leaf_id, fields, move_leaf=True)

    def _add(
        self, entry_type: str, parent: str | None, fields: dict[str, Any], *, move_leaf: bool
    ) -> str:
        entry_id = new_entry_id(self.entries)
        data: dict[str, Any] = {
            "type": entry_type,
            "id": entry_id,
            "parentId": parent,
            "timestamp": iso_now(),
            **fields,
        }
        line = dumps_line(data)
        offset = 0
        if self._writable:
            try:
                offset = self._write(line)
            except OSError as exc:
                # Disk full, PI_HOME/sessions is a file...: keep going unsaved rather than lose
                # the entry (and the event that carried it); the shell tells the user once.
                self.write_error = f"Cannot save session to {self.path}: {exc.strerror or exc}; continuing unsaved."
                self._memory[entry_id] = data
        else:
            self._memory[entry_id] = data
        self.entries[entry_id] = EntryRef(entry_id, parent, entry_type, offset, len(line))
        self.order.append(entry_id)
        if move_leaf:
            self.leaf_id = entry_id
        return entry_id

    def append_message(self, message: Message) -> str:
        """Persist one message (secrets never live in messages)."""
        return self.append("message", message=to_wire(message))

    def append_partial(self, deltas: list[dict[str, Any]], **meta: object) -> None:
        """Save what an answer still streaming has added (text/thinking ``deltas``) under the
        leaf, where the finished message will attach. No fsync (it guards against a killed
        process, not a power cut)."""
        if deltas:
            self.append_sidecar(PARTIAL, sync=False, **meta, deltas=deltas)

    def append_sidecar(self, entry_type: str, *, sync: bool = True, **fields: object) -> None:
        """An entry that is no tree node (``partial``, ``queue``) under the leaf."""
        data = {
            "type": entry_type,
            "id": uuid.uuid4().hex[:8],
            "parentId": self.leaf_id,
            "timestamp": iso_now(),
            **fields,
        }
        self._sidecars[entry_type] = data
        if self._writable:
            try:
                self._write(dumps_line(data), sync=sync)
            except OSError:
                pass  # the next message entry reports a broken disk

    def sidecar(self, entry_type: str) -> dict[str, Any] | None:
        """The newest sidecar entry of ``entry_type`` (``queue``...), or None."""
        if entry_type not in self._sidecars and entry_type in self._sidecar_refs:
            self._sidecars[entry_type] = self.read_entry_at(self._sidecar_refs[entry_type]) or {}
        return self._sidecars.get(entry_type) or None

    @property
    def _writable(self) -> bool:
        return self.path is not None and self.persist and self.write_error is None

    def _write(self, line: bytes, *, sync: bool = True) -> int:
        assert self.path is not None
        done = append_line(self.path, line, header=dumps_line(self.header.to_json()), sync=sync)
        if self._size is not None and done.size_before > self._size:
            self._adopt_foreign(self._size, done.size_before)
        self._written_header = True
        self._size = done.offset + len(line)
        return done.offset

    def _adopt_foreign(self, start: int, end: int) -> None:
        """Another process appended ``[start, end)``: index its entries, say so once."""
        assert self.path is not None
        with self.path.open("rb") as handle:
            handle.seek(start)
            block = handle.read(end - start)
        scan = Scan(self.path)
        scan.entries, scan.order = self.entries, self.order  # added to our index, leaf kept
        cut = block.rfind(b"\n") + 1
        scan.lines(block, start, cut)
        if not any("another pi process" in n for n in self.notices):
            self.notices.append(
                f"Another pi process is writing to this session ({self.path.name}) too; its "
                "entries and ours are both kept, as separate branches (see /tree)"
            )

    def set_leaf(self, entry_id: str | None) -> None:
        """Move the leaf (branching): the next entry attaches under ``entry_id``."""
        if entry_id is not None and entry_id not in self.entries:
            raise SessionError(f"No entry {entry_id} in this session")
        self.leaf_id = entry_id

    # ------------------------------------------------------------------ reading

    def read_entry(self, entry_id: str) -> dict[str, Any] | None:
        """Parse one entry (``None`` if its line is corrupt or invalid)."""
        if entry_id in self._memory:
            return self._memory[entry_id]
        return self.read_entry_at(self.entries[entry_id])

    def read_entry_at(self, ref: EntryRef) -> dict[str, Any] | None:
        """Parse the entry at ``ref`` from the file."""
        if self.path is None:
            return None
        with self.path.open("rb") as handle:
            return self._read_at(handle, ref)

    def where(self, ref: EntryRef) -> str:
        """``file line N`` of an entry, for warnings."""
        name = self.path.name if self.path is not None else "session"
        line = line_number(self.path, ref.offset) if self.path is not None else 0
        return f"{name} line {line}" if line else name

    def _read_at(self, handle: Any, ref: EntryRef) -> dict[str, Any] | None:
        handle.seek(ref.offset)
        try:
            data = json.loads(handle.read(ref.length))
        except (ValueError, UnicodeDecodeError, RecursionError):
            self.warnings.append(f"{self.where(ref)}: skipped a corrupt entry ({ref.id})")
            return None
        if not isinstance(data, dict):
            return None
        problem = entry_problem(data)
        if problem is not None:
            self.warnings.append(f"{self.where(ref)}: skipped {ref.type} entry {ref.id}: {problem}")
            return None
        return data

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
        """Parse the given entries, reading the file once in order (bad ones skipped)."""
        for _, data in self.iter_refs(refs):
            yield data

    def iter_refs(self, refs: list[EntryRef]) -> Iterator[tuple[EntryRef, dict[str, Any]]]:
        """``(ref, entry)`` for the given entries that parse and validate, in order."""
        if self.path is None or not self._written_header:
            for ref in refs:
                if ref.id in self._memory:
                    yield ref, self._memory[ref.id]
            return
        with self.path.open("rb") as handle:
            for ref in refs:
                # Entries appended read-only or after a failed write live in memory only.
                data = (
                    self._memory[ref.id] if ref.id in self._memory else self._read_at(handle, ref)
                )
                if data is not None:
                    yield ref, data

    def build_context(self) -> list[Message]:
        """The messages on the path to the leaf, starting at the last compaction if any.

        Walks back from the leaf only as far as needed: to the last compaction on the path and
        then to the entry it kept first, so a long session with compactions resumes without
        visiting (or parsing) its whole history.
        """
        refs, compaction = context_refs(
            self.entries, self.leaf_id, self._first_valid, self._stand_ins
        )
        messages: list[Message] = []
        if compaction is not None:
            messages.append(compaction_summary_message(str(compaction.get("summary", ""))))
        wanted = [ref for ref in refs if ref.type in ("message", "branch_summary")]
        for ref, data in self.iter_refs(wanted):
            if ref.type == "branch_summary":
                messages.append(branch_summary_message(str(data.get("summary", ""))))
                continue
            try:
                message = entry_message(data)
            except Exception as exc:  # noqa: BLE001 - a bad entry must not make the session unloadable
                problem = first_problem(exc)
                self.warnings.append(
                    f"{self.where(ref)}: skipped message entry {ref.id}: {problem}"
                )
                continue
            if message is not None:
                messages.append(message)
        return messages

    def _first_valid(self, ref: EntryRef) -> dict[str, Any] | None:
        return next(iter(self.iter_entries([ref])), None)

    def latest(self, entry_type: str) -> dict[str, Any] | None:
        """The newest valid entry of ``entry_type`` on the current path."""
        for ref in reversed(self.path_to()):
            if ref.type == entry_type:
                entry = next(iter(self.iter_entries([ref])), None)
                if entry is not None:
                    return entry
        return None
