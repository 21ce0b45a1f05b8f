"""A turn as a collapsible panel: streamed Markdown segments, thinking blocks and tool blocks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Collapsible, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from pi_cli.tui.widgets.entries import keep_focus_in_editor
from pi_cli.tui.widgets.footer import short_tokens
from pi_cli.tui.widgets.markdown import PiMarkdown
from pi_cli.tui.widgets.tool_block import Rest, ToolBlock, spinner_frame

LIVE_THINKING_CHARS = 2000  # tail drawn while a thinking block streams


class ThinkingBlock(Collapsible):
    """Model reasoning: collapsible, dimmed (``$thinking-text``).

    While it streams only the last :data:`LIVE_THINKING_CHARS` characters are drawn: redrawing
    the whole text per delta made a long reasoning block quadratic. :meth:`close` shows it all.
    """

    def __init__(self, text: str = "", *, collapsed: bool = False) -> None:
        self.body = Static(text, classes="thinking-body", markup=False)
        self._parts: list[str] = [text] if text else []
        self._tail = text[-LIVE_THINKING_CHARS:]
        self.live = not text
        super().__init__(self.body, title="Thinking", collapsed=collapsed, classes="thinking")

    def on_mount(self) -> None:
        keep_focus_in_editor(self)

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

    def toggle(self) -> None:
        """Collapse or expand."""
        self.collapsed = not self.collapsed


def turn_title(
    number: int, tools: list[str], tokens: tuple[int, int], seconds: float | None
) -> str:
    """``Turn 2 · bash, read · ↑1.2k ↓80 · 0.7s`` (no duration for a resumed turn)."""
    parts = [f"Turn {number}"]
    if tools:
        parts.append(", ".join(dict.fromkeys(tools)))
    parts.append(f"↑{short_tokens(tokens[0])} ↓{short_tokens(tokens[1])}")
    if seconds is not None:
        parts.append(f"{seconds:.1f}s")
    return " · ".join(parts)


class TurnPanel(Collapsible):
    """One turn. ``turn_start`` opens it, ``turn_end`` writes the summary title.

    Assistant text streams through ``Markdown.get_stream()``: one Markdown widget per text
    segment, a new segment per text block and after each tool call.
    """

    def __init__(
        self,
        number: int,
        clock: Callable[[], float],
        *,
        live: bool = True,
        children: list[Widget] | None = None,
        title: str = "",
        collapsed: bool = False,
    ) -> None:
        self.body = Vertical(*(children or []), classes="turn-body")
        super().__init__(
            self.body,
            title=title or f"Turn {number} · running…",
            collapsed=collapsed,
            classes="turn -live" if live else "turn",
        )
        self.number = number
        self.clock = clock
        self.started = clock()
        self.live = live
        self.tools: dict[str, ToolBlock] = {}
        for child in children or []:
            if isinstance(child, ToolBlock):
                self.tools[child.call_id] = child
        self._segment: Markdown | None = None
        self._segment_index: int | None = None
        self._stream: MarkdownStream | None = None
        self._thinking: ThinkingBlock | None = None
        self._thinking_index: int | None = None
        self._has_output = bool(children)
        self.text = ""  # all assistant text of the turn (tests, benchmarks)

    def on_mount(self) -> None:
        keep_focus_in_editor(self)

    @property
    def has_no_output(self) -> bool:
        """True until the assistant produced anything."""
        return not self._has_output

    def tick(self, now: float) -> None:
        """Spinner and elapsed time in the title of a live turn; its running tools' too."""
        if not self.live:
            return
        doing = "waiting for the model" if self.has_no_output else "running"
        self.title = f"Turn {self.number} · {spinner_frame(now)} {doing} {now - self.started:.1f}s"
        for block in self.tools.values():
            block.tick(now)

    async def _add(self, widget: Widget) -> None:
        self._has_output = True
        if self.body.is_attached:  # not while the app shuts down (an abort note at exit)
            await self.body.mount(widget)

    async def add_text(self, index: int, delta: str) -> None:
        """Stream a text delta into the current segment (a new index starts a new one)."""
        if self._segment is None or self._segment_index != index:
            await self.end_segment()
            self._segment = PiMarkdown(classes="assistant-text")
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

    async def add_note(self, text: str, css_class: str = "retry") -> None:
        """A dim line inside the turn, where it happened (retries)."""
        await self.end_segment()
        await self._add(Static(text, classes=f"turn-note {css_class}", markup=False))

    async def tool_started(
        self, call_id: str, name: str, args: Any, title: str = "", rest: Rest = "preview"
    ) -> ToolBlock:
        """Open a tool block; later text goes into a new Markdown segment."""
        await self.end_segment()
        block = ToolBlock(call_id, name, args, title, self.clock, rest)
        self.tools[call_id] = block
        await self._add(block)
        return block

    def tool_progress(self, call_id: str, text: str) -> None:
        """Live tool output."""
        if call_id in self.tools:
            self.tools[call_id].progress(text)

    async def tool_finished(
        self, call_id: str, name: str, text: str, is_error: bool, details: Any
    ) -> ToolBlock:
        """Show a tool's result."""
        if call_id not in self.tools:
            await self.tool_started(call_id, name, None)
        block = self.tools[call_id]
        block.finish(text, is_error, details)
        return block

    async def finish(self, tools: list[str], input_tokens: int, output_tokens: int) -> None:
        """Close the turn: summary title (number, tools used, tokens, duration)."""
        await self.end_segment()
        self.live = False
        seconds = self.clock() - self.started
        self.title = turn_title(self.number, tools, (input_tokens, output_tokens), seconds)
        # Only the panel's own border depends on ``-live`` (app.tcss: ``Collapsible.turn.-live``,
        # checked by a test): restyling the whole subtree, every Markdown block of a long
        # answer, cost ~0.1 s at the end of each long turn.
        self.remove_class("-live", update=False)
        if self.is_attached:
            self.app.stylesheet.update_nodes([self], animate=True)

    def toggle(self) -> None:
        """Collapse or expand the turn."""
        self.collapsed = not self.collapsed
