"""Bounded collection of command output: everything in memory while small, then a rolling tail
in memory plus the output spilled to a file that is itself capped (head and rolling tail).
"""

from __future__ import annotations

import os
import tempfile
from collections import deque
from pathlib import Path

from tools._truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    Truncation,
    format_size,
    truncate_tail,
)

DEFAULT_SPILL_CAP = 50 * 1024 * 1024
"""Largest full-output file (``bashSpillCapMb`` setting): past it the middle is dropped."""
_COPY = 1024 * 1024
_MARK = "\n\n[... pi dropped {:>16} bytes of output here: over the {} cap ...]\n\n"


class SpillFile:
    """An append-only file kept under ``cap`` bytes: the first half of the output stays, then a
    marker saying how much was dropped, then a rolling tail of the latest output.

    Past the cap each compaction keeps the newest quarter-cap of the tail, so every byte is
    copied at most once more and the file never grows past ``cap`` plus one chunk.
    """

    def __init__(self, directory: Path | None, cap: int, prefix: str = "pi-bash-") -> None:
        fd, name = tempfile.mkstemp(prefix=prefix, suffix=".log", dir=directory)
        self.fd: int | None = fd
        self.path = name
        self.cap = max(cap, 4096)
        self.size = 0
        self.dropped = 0
        self._marker_at: int | None = None

    def _marker(self) -> bytes:
        return _MARK.format(self.dropped, format_size(self.cap)).encode()

    def write(self, chunk: bytes) -> None:
        assert self.fd is not None
        os.pwrite(self.fd, chunk, self.size)
        self.size += len(chunk)
        if self.size > self.cap:
            self._compact()

    def _compact(self) -> None:
        assert self.fd is not None
        first = self._marker_at is None
        if self._marker_at is None:
            self._marker_at = self.cap // 2
        start = self._marker_at + len(self._marker())  # the marker's width never changes
        keep = max(1, self.cap // 4)
        src = max(start, self.size - keep)
        # The first time, the bytes under the marker itself are lost too.
        self.dropped += src - (self._marker_at if first else start)
        dst = start
        while src < self.size:  # forward copy: safe although the ranges may overlap
            block = os.pread(self.fd, min(_COPY, self.size - src), src)
            os.pwrite(self.fd, block, dst)
            src += len(block)
            dst += len(block)
        os.ftruncate(self.fd, dst)
        self.size = dst
        os.pwrite(self.fd, self._marker(), self._marker_at)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


class OutputBuffer:
    """Accumulates output chunks with memory bounded by about ``2 * max_bytes`` once spilled.

    While the output fits the limits nothing touches the disk. The first time it exceeds them,
    a file receives everything seen so far and every later chunk (see :class:`SpillFile` for
    the cap), so the model can be told where the full output lives.
    """

    def __init__(
        self,
        max_lines: int = DEFAULT_MAX_LINES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        *,
        cap: int = DEFAULT_SPILL_CAP,
        directory: Path | None = None,
    ) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self.cap = cap
        self.directory = directory
        self.total_bytes = 0
        self.total_newlines = 0
        self.full_output_path: str | None = None
        self._file: SpillFile | None = None
        self._chunks: deque[bytes] = deque()
        self._held = 0
        # Keep twice the byte budget so a whole final line and some slack always survive.
        self._keep = 2 * max_bytes
        self.last_byte = b""

    def add(self, chunk: bytes) -> None:
        """Append one chunk of raw output."""
        if not chunk:
            return
        self.total_bytes += len(chunk)
        self.total_newlines += chunk.count(b"\n")
        self.last_byte = chunk[-1:]
        self._chunks.append(chunk)
        self._held += len(chunk)
        if self._file is None and (
            self.total_bytes > self.max_bytes or self.total_newlines > self.max_lines
        ):
            self._spill()
        elif self._file is not None:
            self._file.write(chunk)
        if self._file is not None:
            while len(self._chunks) > 1 and self._held - len(self._chunks[0]) >= self._keep:
                self._held -= len(self._chunks.popleft())

    def _spill(self) -> None:
        self._file = SpillFile(self.directory, self.cap)
        for chunk in self._chunks:
            self._file.write(chunk)
        self.full_output_path = self._file.path

    @property
    def spilled(self) -> bool:
        """True once the full output went to a file."""
        return self._file is not None

    @property
    def dropped(self) -> int:
        """Bytes left out of the full-output file (its middle, past the cap)."""
        return self._file.dropped if self._file is not None else 0

    @property
    def total_lines(self) -> int:
        """Number of lines seen (a last line without newline counts)."""
        if self.total_bytes == 0:
            return 0
        return self.total_newlines + (0 if self.last_byte == b"\n" else 1)

    def close(self) -> None:
        """Close the spill file (the file itself is kept for the model to read)."""
        if self._file is not None:
            self._file.close()

    def since(self, offset: int) -> tuple[bytes, int]:
        """The held output from byte ``offset`` on, and how many bytes after ``offset`` are no
        longer held in memory (they went by while nobody asked)."""
        start = self.total_bytes - self._held
        data = b"".join(self._chunks)
        if offset >= start:
            return data[offset - start :], 0
        return data, start - offset

    def tail(self) -> Truncation:
        """The last lines within the limits, with totals counted over the whole output."""
        data = b"".join(self._chunks)
        dropped = self.total_bytes - len(data)
        if dropped:
            # The held bytes may begin mid-line (or mid-character): drop up to the first newline.
            cut = data.find(b"\n")
            if 0 <= cut < len(data) - 1:
                data = data[cut + 1 :]
        result = truncate_tail(data.decode("utf-8", "replace"), self.max_lines, self.max_bytes)
        if dropped:
            result.truncated = True
            result.truncated_by = result.truncated_by or "bytes"
        result.total_lines = self.total_lines
        result.total_bytes = self.total_bytes
        return result
