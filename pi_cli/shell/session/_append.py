"""Appending to a session file that another pi process may be appending to as well.

Each append takes an exclusive ``flock`` on the file, so lines of two processes never
interleave, and reads the size under that lock, so the offset an entry is indexed at is where
it really landed (``tell()`` before an ``O_APPEND`` write may be stale). A line left without
its newline by a killed writer gets one first, so the next line is not glued to it. What the
size says about other writers is returned: the caller detects them and says so.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import uuid
from collections.abc import Container, Iterator
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: appends stay unlocked
    fcntl = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Appended:
    """Where a write landed: ``offset`` of its first byte, ``size_before`` the file's size
    (before any header or repair newline) when the lock was taken."""

    offset: int
    size_before: int


@contextlib.contextmanager
def _locked(fd: int) -> Iterator[None]:
    if fcntl is None:
        yield
        return
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)


def append_line(path: Path, line: bytes, *, header: bytes, sync: bool = True) -> Appended:
    """Append one complete line (``\\n`` included); an empty file gets ``header`` first."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        with _locked(fd):
            size = os.fstat(fd).st_size
            if size == 0:
                prefix = header
            elif os.pread(fd, 1, size - 1) != b"\n":
                prefix = b"\n"  # a killed writer's torn line: end it, keep ours whole
            else:
                prefix = b""
            data = prefix + line
            written = 0
            while written < len(data):  # a regular file takes it in one go; be sure
                written += os.write(fd, data[written:])
            if sync:
                os.fsync(fd)
            return Appended(size + len(prefix), size)
    finally:
        os.close(fd)


def iso_now() -> str:
    """Now, as a session entry's ``timestamp`` (UTC, milliseconds)."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_entry_id(existing: Container[str]) -> str:
    """A short id no entry of ``existing`` has."""
    while True:
        candidate = uuid.uuid4().hex[:8]
        if candidate not in existing:
            return candidate
