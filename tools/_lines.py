"""Reading a window of lines from a file of any size with bounded memory.

No line is ever held whole: each is cut to ``line_cap`` bytes as it is read (its full length
is still counted), and past the window only newlines are counted, a megabyte at a time. A 2 GB
file without a newline costs a couple of megabytes and one pass over the bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO

CHUNK = 1024 * 1024


@dataclass
class Line:
    """One line of the window: its number, its first ``line_cap`` bytes, its full length, and
    the byte offset where it starts."""

    number: int
    head: bytes
    length: int
    offset: int = 0

    @property
    def cut(self) -> bool:
        """The line is longer than what was kept."""
        return self.length > len(self.head)


def read_window(
    handle: BinaryIO, start: int, wanted: int, max_bytes: int, line_cap: int
) -> tuple[list[Line], int]:
    """Lines ``start``.. (at most ``wanted``, until their kept bytes pass ``max_bytes``) and the
    number of lines in the file (a last line without newline counts). Newlines are dropped."""
    window: list[Line] = []
    kept = 0
    newlines = 0  # seen so far: the current line is number newlines + 1
    head = bytearray()
    length = 0
    line_at = 0  # file offset where the current line starts
    base = 0  # file offset of the chunk
    done = False  # the window is complete: only newlines are counted from here on
    trailing = False  # bytes after the last newline so far
    while chunk := handle.read(CHUNK):
        trailing = not chunk.endswith(b"\n")
        count = chunk.count(b"\n")
        if done or newlines + count < start - 1:
            newlines += count  # past the window, or still before it
            base += len(chunk)
            continue
        at = 0
        while newlines + 1 < start:  # skip to the window's first line inside this chunk
            at = chunk.index(b"\n", at) + 1
            newlines += 1
            line_at = base + at
        while True:
            newline = chunk.find(b"\n", at)
            stop = len(chunk) if newline < 0 else newline
            if len(head) < line_cap:
                head += chunk[at : min(stop, at + line_cap - len(head))]
            length += stop - at
            if newline < 0:
                break
            window.append(Line(newlines + 1, bytes(head), length, line_at))
            kept += len(head) + 1
            newlines += 1
            head.clear()
            length = 0
            at = newline + 1
            line_at = base + at
            if len(window) >= wanted or kept > max_bytes:
                done = True
                newlines += chunk.count(b"\n", at)  # the rest of this chunk
                break
        base += len(chunk)
    if trailing and not done and newlines + 1 >= start:
        window.append(Line(newlines + 1, bytes(head), length, line_at))
    return window, newlines + (1 if trailing else 0)
