"""Bounded collection of command output: everything in memory while small, then a rolling tail
in memory plus the full output spilled to a temp file.
"""

from __future__ import annotations

import tempfile
from collections import deque
from typing import IO

from tools._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, Truncation, truncate_tail


class OutputBuffer:
    """Accumulates output chunks with memory bounded by about ``2 * max_bytes`` once spilled.

    While the output fits the limits nothing touches the disk. The first time it exceeds them,
    a temp file receives everything seen so far and every later chunk, so the model can be told
    where the full output lives.
    """

    def __init__(
        self, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self.total_bytes = 0
        self.total_newlines = 0
        self.full_output_path: str | None = None
        self._file: IO[bytes] | None = None
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
        handle = tempfile.NamedTemporaryFile(prefix="pi-bash-", suffix=".log", delete=False)
        for chunk in self._chunks:
            handle.write(chunk)
        self._file = handle
        self.full_output_path = handle.name

    @property
    def spilled(self) -> bool:
        """True once the full output went to a temp file."""
        return self._file is not None

    @property
    def total_lines(self) -> int:
        """Number of lines seen (a last line without newline counts)."""
        if self.total_bytes == 0:
            return 0
        return self.total_newlines + (0 if self.last_byte == b"\n" else 1)

    def close(self) -> None:
        """Flush and close the spill file (the file itself is kept for the model to read)."""
        if self._file is not None:
            self._file.close()

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
