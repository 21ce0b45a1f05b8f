"""The lines of the current run, kept for clients that attach while it is live.

A client that attaches mid-run gets the conversation as it was when the shell became busy, then
these lines, then the live stream: it sees the whole run. The backlog stays about as large as
the run's messages, not as its stream: a ``message_update`` carries the whole partial message,
so only the newest one of the message still streaming is kept (clients take the text from the
partial, not from the deltas; a sub-agent's updates carry deltas only and all stay); a tool's progress keeps its newest update until the tool ends;
an approval's request lines go once it is resolved.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

Line = tuple[str, dict[str, Any]]
"""A line as sent (JSON text) and as data (to decide what it replaces)."""


class Backlog:
    """Lines since the shell last became busy, with superseded ones dropped."""

    def __init__(self) -> None:
        self._lines: list[str | None] = []
        self._dropped = 0
        self._update_at: dict[str, int] = {}  # what streams -> index of its newest update line
        self._requests: dict[str, list[int]] = {}  # approval id -> its request lines

    def reset(self) -> None:
        """Forget everything (a new input starts)."""
        self._lines.clear()
        self._dropped = 0
        self._update_at.clear()
        self._requests.clear()

    def __len__(self) -> int:
        return len(self._lines) - self._dropped

    def __iter__(self) -> Iterator[str]:
        return (line for line in self._lines if line is not None)

    def add(self, text: str, data: dict[str, Any]) -> None:
        """Keep ``text`` (the line ``data`` was written as), dropping what it supersedes."""
        kind = data.get("type")
        stream = _stream_key(data)
        if stream is not None:
            self._drop(self._update_at.pop(stream, None))
            self._update_at[stream] = len(self._lines)
        elif kind in ("message_start", "message_end"):
            self._drop(self._update_at.pop("message", None))
        elif kind == "tool_execution_end":
            self._drop(self._update_at.pop(f"tool:{data.get('toolCallId')}", None))
        elif kind in ("extension_ui_request", "permission_requested"):
            self._requests.setdefault(str(data.get("id")), []).append(len(self._lines))
        elif kind == "permission_resolved":
            for index in self._requests.pop(str(data.get("id")), []):
                self._drop(index)
        self._lines.append(text)
        if self._dropped > 256 and self._dropped > len(self._lines) // 2:
            self._compact()

    def _drop(self, index: int | None) -> None:
        if index is not None and self._lines[index] is not None:
            self._lines[index] = None
            self._dropped += 1

    def _compact(self) -> None:
        """Remove the holes (indexes held for later drops are renumbered)."""
        moved: dict[int, int] = {}
        kept: list[str | None] = []
        for index, line in enumerate(self._lines):
            if line is not None:
                moved[index] = len(kept)
                kept.append(line)
        self._lines, self._dropped = kept, 0
        self._update_at = {k: moved[i] for k, i in self._update_at.items() if i in moved}
        self._requests = {k: [moved[i] for i in v if i in moved] for k, v in self._requests.items()}


def _stream_key(data: dict[str, Any]) -> str | None:
    """What a superseding update belongs to (``None``: the line is not such an update)."""
    kind = data.get("type")
    if kind == "message_update":
        return "message"
    if kind == "tool_execution_update":
        return f"tool:{data.get('toolCallId')}"
    return None  # a sub-agent's updates carry deltas only: they all stay
