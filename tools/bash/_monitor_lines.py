"""A monitor's lines: output chunks cut into lines, filtered by the pattern, capped.

Bounded whatever the command prints: at most ``max_lines`` lines wait for the next delivery
(more matching lines are only counted), each cut to ``max_line_bytes`` (a line without an end
is kept up to :data:`LINE_LIMIT` bytes, the rest of it skipped until its newline), and without
a pattern, once the delivery is full, lines are counted without being decoded.
"""

from __future__ import annotations

import re

from tools.bash._result import clean_output

LINE_LIMIT = 64 * 1024
"""Bytes of one line kept for matching; the rest of a longer line is skipped."""


class LineBatcher:
    """Lines waiting for the next delivery (see the module docstring)."""

    def __init__(self, pattern: re.Pattern[str] | None, max_lines: int, max_line_bytes: int):
        self.pattern = pattern
        self.max_lines = max_lines
        self.max_line_bytes = max_line_bytes
        self.lines: list[str] = []
        self.dropped = 0
        """Matching lines over ``max_lines`` since the last delivery (counted, not kept)."""
        self.truncated = 0
        """Lines of the batch cut to ``max_line_bytes``."""
        self.total_matched = 0
        self._partial = bytearray()
        self._skipping = False  # the partial line went over LINE_LIMIT: skip to its newline

    @property
    def pending(self) -> bool:
        """Something to deliver (lines, or lines dropped)."""
        return bool(self.lines) or self.dropped > 0

    def feed(self, chunk: bytes) -> None:
        """Take a chunk of output: complete lines are matched and kept (or counted)."""
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if end < 0:
                self._keep_partial(chunk[start:])
                return
            piece = chunk[start:end]
            start = end + 1
            if self._skipping:
                self._skipping = False
                self._partial.clear()
                continue
            if self._partial:
                self._partial += piece
                piece, self._partial = bytes(self._partial[:LINE_LIMIT]), bytearray()
            self._line(piece)
            if self.pattern is None and len(self.lines) >= self.max_lines:
                # Full: count the remaining complete lines without decoding them.
                rest = chunk.count(b"\n", start)
                self.dropped += rest
                self.total_matched += rest
                if rest:
                    start = chunk.rfind(b"\n") + 1
                self._keep_partial(chunk[start:])
                return

    def _keep_partial(self, tail: bytes) -> None:
        if self._skipping or not tail:
            return
        room = LINE_LIMIT - len(self._partial)
        self._partial += tail[:room]
        if len(tail) > room:
            # Keep what fits for matching; the line ends (is judged) at its newline.
            self._line(bytes(self._partial))
            self._partial.clear()
            self._skipping = True

    def finish(self) -> None:
        """The output ended: a last line without a newline counts too."""
        if self._partial and not self._skipping:
            self._line(bytes(self._partial))
        self._partial.clear()
        self._skipping = False

    def _line(self, raw: bytes) -> None:
        text = clean_output(raw.decode("utf-8", "replace")).rstrip("\r")
        if self.pattern is not None and self.pattern.search(text) is None:
            return
        self.total_matched += 1
        if len(self.lines) >= self.max_lines:
            self.dropped += 1
            return
        encoded = text.encode()
        if len(encoded) > self.max_line_bytes:
            text = encoded[: self.max_line_bytes].decode("utf-8", "ignore") + "…"
            self.truncated += 1
        self.lines.append(text)

    def take(self) -> tuple[list[str], int, int]:
        """The batch (lines, dropped, truncated), emptied."""
        batch = (self.lines, self.dropped, self.truncated)
        self.lines, self.dropped, self.truncated = [], 0, 0
        return batch
