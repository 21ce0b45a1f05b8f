"""``<think>...</think>`` at the start of a response: reasoning that arrived as plain content.

Local servers without a reasoning parser (llama.cpp, Ollama, vLLM, LM Studio) and some hosted
ones (DeepSeek-R1 distills on Groq, Together) stream a reasoning model's thoughts inside the
content, wrapped in ``<think>`` tags. Shown as the answer, they bury it; sent back as text,
they waste context. The splitter turns a leading think block into thinking and the rest into
text, across any chunking (a tag may arrive one character at a time). Once the response is
known not to start with ``<think>``, or the block is closed, it is out of the way: the
accumulator drops it and content goes straight through.
"""

from __future__ import annotations

OPEN = "<think>"
CLOSE = "</think>"
Piece = tuple[str, str]  # ("thinking" | "text", text)


class ThinkTagSplitter:
    """Feeds content text; returns pieces. ``done`` once it has nothing more to split."""

    __slots__ = ("_buffer", "_inside", "done", "_after_close")

    def __init__(self) -> None:
        self._buffer = ""
        self._inside = False
        self._after_close = False  # strip the blank lines between the block and the answer
        self.done = False

    def feed(self, text: str) -> list[Piece]:
        """Split one content delta."""
        if self._after_close:
            return self._leading_text(text)
        data = self._buffer + text
        self._buffer = ""
        if not self._inside:
            head = data.lstrip()
            if len(head) < len(OPEN) and OPEN.startswith(head):
                self._buffer = data  # could still become "<think>"
                return []
            if not head.startswith(OPEN):
                self.done = True
                return [("text", data)] if data else []
            self._inside = True
            data = head[len(OPEN) :]
        end = data.find(CLOSE)
        if end != -1:
            pieces: list[Piece] = [("thinking", data[:end])] if data[:end] else []
            self._inside = False
            self._after_close = True
            return pieces + self._leading_text(data[end + len(CLOSE) :])
        keep = _partial_suffix(data, CLOSE)  # a "</thi" at the end waits for the next chunk
        if keep:
            self._buffer = data[-keep:]
            data = data[:-keep]
        return [("thinking", data)] if data else []

    def finish(self) -> list[Piece]:
        """The held-back rest at the end of the stream (an unclosed block stays thinking)."""
        rest, self._buffer = self._buffer, ""
        self.done = True
        if not rest:
            return []
        return [("thinking" if self._inside else "text", rest)]

    def _leading_text(self, text: str) -> list[Piece]:
        stripped = text.lstrip()
        if not stripped:
            return []
        self._after_close = False
        self.done = True
        return [("text", stripped)]


def _partial_suffix(data: str, tag: str) -> int:
    """Length of the longest end of ``data`` that is a proper prefix of ``tag``."""
    for size in range(min(len(tag) - 1, len(data)), 0, -1):
        if data.endswith(tag[:size]):
            return size
    return 0
