"""Shared output truncation: keep the head or the tail of a text by lines and bytes.

Every tool that returns potentially large text goes through here, so the limits and the notes the
model reads are the same everywhere. Truncation never cuts inside a line, except when a single
line is itself larger than the byte budget (then :func:`truncate_tail` keeps the end of it and
says so, because returning nothing would be worse).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, Literal

DEFAULT_MAX_LINES = 2000
DEFAULT_MAX_BYTES = 50 * 1024
GREP_MAX_LINE_LENGTH = 500


@dataclass
class Truncation:
    """The kept text plus the numbers needed to tell the model what was left out."""

    content: str
    truncated: bool
    truncated_by: Literal["lines", "bytes"] | None
    total_lines: int
    total_bytes: int
    output_lines: int
    output_bytes: int
    max_lines: int
    max_bytes: int
    first_line_exceeds_limit: bool = False
    last_line_partial: bool = False

    def to_details(self) -> dict[str, Any]:
        """JSON-ready summary for ``ToolResult.details`` (the kept text itself left out)."""
        data = asdict(self)
        data.pop("content")
        return data


def format_size(num_bytes: int) -> str:
    """Human-readable size: ``512B``, ``50.0KB``, ``1.2MB``, ``2.0GB``."""
    if num_bytes < 1024:
        return f"{num_bytes}B"
    if num_bytes < 1024 * 1024:
        return f"{num_bytes / 1024:.1f}KB"
    if num_bytes < 1024**3:
        return f"{num_bytes / (1024 * 1024):.1f}MB"
    return f"{num_bytes / 1024**3:.1f}GB"


def split_lines(text: str) -> list[str]:
    """Lines without their ``\\n``; a final newline does not start an extra empty line."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def _byte_len(line: str) -> int:
    return len(line.encode("utf-8", "surrogatepass"))


def _take(
    lines: Iterable[str], max_lines: int, max_bytes: int
) -> tuple[list[str], int, Literal["lines", "bytes"] | None, str | None]:
    """Whole lines in order until a limit is hit: (kept, bytes used, limit hit, first line left out)."""
    kept: list[str] = []
    used = 0
    for line in lines:
        if len(kept) >= max_lines:
            return kept, used, "lines", line
        cost = _byte_len(line) + (1 if kept else 0)
        if used + cost > max_bytes:
            return kept, used, "bytes", line
        kept.append(line)
        used += cost
    return kept, used, None, None


def truncate_head(
    text: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> Truncation:
    """Keep whole lines from the start until either limit is reached (for file reads)."""
    lines = split_lines(text)
    kept, used, by, _ = _take(lines, max_lines, max_bytes)
    return Truncation(
        content="\n".join(kept),
        truncated=by is not None,
        truncated_by=by,
        total_lines=len(lines),
        total_bytes=_byte_len(text),
        output_lines=len(kept),
        output_bytes=used,
        max_lines=max_lines,
        max_bytes=max_bytes,
        first_line_exceeds_limit=bool(lines) and not kept and by == "bytes",
    )


def truncate_tail(
    text: str, max_lines: int = DEFAULT_MAX_LINES, max_bytes: int = DEFAULT_MAX_BYTES
) -> Truncation:
    """Keep whole lines from the end until either limit is reached (for command output)."""
    lines = split_lines(text)
    kept, used, by, left_out = _take(reversed(lines), max_lines, max_bytes)
    partial = False
    if by == "bytes" and not kept and left_out is not None:
        # One enormous last line: keep its end rather than nothing at all.
        tail = left_out.encode("utf-8", "surrogatepass")[-max_bytes:]
        kept = [tail.decode("utf-8", "ignore")]
        used = _byte_len(kept[0])
        partial = True
    kept.reverse()
    return Truncation(
        content="\n".join(kept),
        truncated=by is not None,
        truncated_by=by,
        total_lines=len(lines),
        total_bytes=_byte_len(text),
        output_lines=len(kept),
        output_bytes=used,
        max_lines=max_lines,
        max_bytes=max_bytes,
        last_line_partial=partial,
    )


def truncate_line(line: str, max_chars: int = GREP_MAX_LINE_LENGTH) -> tuple[str, bool]:
    """Cut one line to ``max_chars`` characters. Returns (text, was_cut)."""
    if len(line) <= max_chars:
        return line, False
    return line[:max_chars] + "... [truncated]", True
