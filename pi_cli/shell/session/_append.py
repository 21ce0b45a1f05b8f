"""Appending to a session file that another pi process may be appending to as well.

Each append takes an exclusive ``flock`` on the file, so lines of two processes never
interleave, and reads the size under that lock, so the offset an entry is indexed at is where
it really landed (``tell()`` before an ``O_APPEND`` write may be stale). A line left without
its newline by a killed writer gets one first, so the next line is not glued to it. What the
size says about other writers is returned: the caller detects them and says so.

The write is done when :func:`append_line` returns (it survives pi being killed); the ``fsync``
that makes it survive a power cut runs on a background thread (:class:`_Syncer`), so a turn
does not wait on the disk (it took 2-6 ms per entry on a busy machine, twice a tool turn).
Pending syncs are finished before the process exits.
"""

from __future__ import annotations

import atexit
import contextlib
import datetime as _dt
import os
import threading
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
            done = Appended(size + len(prefix), size)
    except BaseException:
        os.close(fd)
        raise
    if sync:
        _SYNCER.sync(fd)  # unlocked: the syncer closes it when it is on disk
    else:
        os.close(fd)
    return done


def iso_now() -> str:
    """Now, as a session entry's ``timestamp`` (UTC, milliseconds)."""
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_entry_id(existing: Container[str]) -> str:
    """A short id no entry of ``existing`` has."""
    while True:
        candidate = uuid.uuid4().hex[:8]
        if candidate not in existing:
            return candidate


class _Syncer:
    """fsyncs (then closes) descriptors handed to it, on one daemon thread, in order.

    Descriptors of one file waiting together are synced once (the call syncs the file, not
    the descriptor). :meth:`flush` waits until everything handed over is synced; it runs at
    exit.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._pending: list[int] = []
        self._busy = False
        self._thread: threading.Thread | None = None

    def sync(self, fd: int) -> None:
        with self._cond:
            self._pending.append(fd)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="pi-fsync", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending:
                    self._cond.wait()
                batch, self._pending = self._pending, []
                self._busy = True
            synced: set[tuple[int, int]] = set()
            for fd in batch:
                try:
                    stat = os.fstat(fd)
                    if (stat.st_dev, stat.st_ino) not in synced:
                        os.fsync(fd)
                        synced.add((stat.st_dev, stat.st_ino))
                except OSError:
                    pass  # the write itself succeeded; a failed sync leaves it in the page cache
                finally:
                    os.close(fd)
            with self._cond:
                self._busy = False
                self._cond.notify_all()

    def flush(self, timeout: float = 10.0) -> bool:
        """Wait until every descriptor handed over is synced; False if ``timeout`` ran out."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._pending and not self._busy, timeout)


_SYNCER = _Syncer()
atexit.register(_SYNCER.flush)


def flush_syncs(timeout: float = 10.0) -> bool:
    """Wait until every session write so far is on disk (fsync'd)."""
    return _SYNCER.flush(timeout)
