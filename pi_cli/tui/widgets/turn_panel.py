"""A turn as a collapsible panel: streamed Markdown segments, thinking blocks and tool blocks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from pi_cli.tui.widgets.footer import short_tokens
from pi_cli.tui.widgets.tool_block import ToolBlock

LIVE_THINKING_CHARS = 2000  # tail drawn while a thinking block streams


class ThinkingBlock(Collapsible):
    """Model reasoning: collapsible, dimmed (``$thinking-text``).

    While it streams only the last :data:`LIVE_THINKING_CHARS` characters are drawn: redrawing
    the whole text per delta made a long reasoning block quadratic. :meth:`close` shows it all.
    """

    def __init__(self) -> None:
        self.body = Static("", classes="thinking-body", markup=False)
        self._parts: list[str] = []
        self._tail = ""
        self.live = True
        super().__init__(self.body, title="Thinking", collapsed=False, classes="thinking")

    @property
    def text(self) -> str:
        """All reasoning text so far."""
        return "".join(self._parts)

    def add(self, delta: str) -> None:
        """Append reasoning text."""
        self._parts.append(delta)
        self._tail = (self._tail + delta)[-LIVE_THINKING_CHARS:]
        clipped = len(self._tail) == LIVE_THINKING_CHARS
        self.body.update("…" + self._tail.split("\n", 1)[-1] if clipped else self._tail)

    def close(self) -> None:
        """The block is complete: draw the whole text once."""
        if self.live:
            self.live = False
            self.body.update(self.text)


class TurnPanel(Collapsible):
    """One turn. ``turn_start`` opens it, ``turn_end`` writes the summary title.

    Assistant text streams through ``Markdown.get_stream()``: one Markdown widget per text
    segment, a new segment per text block and after each tool call.
    """

    def __init__(self, number: int, clock: Callable[[], float]) -> None:
        self.body = Vertical(classes="turn-body")
        super().__init__(
            self.body, title=f"Turn {number} · running…", collapsed=False, classes="turn -live"
        )
        self.number = number
        self.clock = clock
        self.started = clock()
        self.tools: dict[str, ToolBlock] = {}
        self._segment: Markdown | None = None
        self._segment_index: int | None = None
        self._stream: MarkdownStream | None = None
        self._thinking: ThinkingBlock | None = None
        self._thinking_index: int | None = None
        self.text = ""  # all assistant text of the turn (tests, benchmarks)

    @property
    def has_no_output(self) -> bool:
        """True until the assistant produced anything."""
        return not self.body.children

    async def _add(self, widget: Widget) -> None:
        if self.body.is_attached:  # not while the app shuts down (an abort note at exit)
            await self.body.mount(widget)

    async def add_text(self, index: int, delta: str) -> None:
        """Stream a text delta into the current segment (a new index starts a new one)."""
        if self._segment is None or self._segment_index != index:
            await self.end_segment()
            self._segment = Markdown(classes="assistant-text")
            self._segment_index = index
            await self._add(self._segment)
            self._stream = Markdown.get_stream(self._segment)
        self.text += delta
        assert self._stream is not None
        await self._stream.write(delta)

    async def end_segment(self) -> None:
        """Flush and close the live Markdown stream or thinking block, if any."""
        stream, self._stream = self._stream, None
        self._segment = None
        if self._thinking is not None:
            self._thinking.close()
            self._thinking, self._thinking_index = None, None
        if stream is not None:
            await stream.stop()

    async def add_thinking(self, index: int, delta: str) -> None:
        """Append reasoning to the current thinking block (a new index starts a new one)."""
        if self._thinking is None or self._thinking_index != index:
            await self.end_segment()
            self._thinking = ThinkingBlock()
            self._thinking_index = index
            await self._add(self._thinking)
        self._thinking.add(delta)

    async def add_error(self, text: str, css_class: str = "error") -> None:
        """Show an error (or an ``aborted`` note) inside the turn."""
        await self.end_segment()
        await self._add(Static(text, classes=f"turn-note {css_class}", markup=False))

    async def tool_started(self, call_id: str, name: str, args: Any, title: str = "") -> None:
        """Open a tool block; later text goes into a new Markdown segment."""
        await self.end_segment()
        block = ToolBlock(call_id, name, args, title)
        self.tools[call_id] = block
        await self._add(block)

    def tool_progress(self, call_id: str, text: str) -> None:
        """Live tool output."""
        if call_id in self.tools:
            self.tools[call_id].progress(text)

    async def tool_finished(
        self, call_id: str, name: str, text: str, is_error: bool, details: Any
    ) -> None:
        """Show a tool's result."""
        if call_id not in self.tools:
            await self.tool_started(call_id, name, None)
        self.tools[call_id].finish(text, is_error, details)

    async def finish(self, tools: list[str], input_tokens: int, output_tokens: int) -> None:
        """Close the turn: summary title (number, tools used, tokens, duration)."""
        await self.end_segment()
        parts = [f"Turn {self.number}"]
        if tools:
            parts.append(", ".join(dict.fromkeys(tools)))
        parts.append(f"↑{short_tokens(input_tokens)} ↓{short_tokens(output_tokens)}")
        parts.append(f"{self.clock() - self.started:.1f}s")
        self.title = " · ".join(parts)
        self.remove_class("-live")
