"""A turn as a folding panel: streamed Markdown segments, thinking blocks, tool calls, notes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.content import Content

from pi_cli.tui.document import styles
from pi_cli.tui.document.entries import NoteBlock
from pi_cli.tui.document.markdown import MarkdownBlock
from pi_cli.tui.document.panel import Panel
from pi_cli.tui.document.rows import Block, Row
from pi_cli.tui.document.tool import Rest, ToolBlock, spinner_frame
from pi_cli.tui.widgets.footer import short_tokens

LIVE_THINKING_CHARS = 2000  # tail drawn while a thinking block streams
STALL_S = 5.0  # an answer silent this long mid-stream says so in its turn's title


class AnswerBlock(MarkdownBlock):
    """Assistant text in a turn: Markdown with one column of air on the right."""

    margin_bottom = 1

    def measure(self, width: int) -> int:
        return super().measure(max(1, width - 1))

    def draw(self, index: int, width: int) -> Row:
        return super().draw(index, max(1, width - 1)).framed(Content(""), Content(" "))

    def locate(self, index: int, width: int) -> tuple[Block, int, int] | None:
        return super().locate(index, max(1, width - 1))


class ThinkingBlock(Panel):
    """Model reasoning: folding, dimmed.

    While it streams only the last :data:`LIVE_THINKING_CHARS` characters are drawn (a long
    reasoning block redrawn per delta was quadratic); :meth:`close` shows it all.
    """

    bar = False
    title_pad = 0
    indent = 2

    def __init__(self, text: str = "", *, collapsed: bool = False) -> None:
        from pi_cli.tui.document.entries import TextBlock

        super().__init__("Thinking", collapsed=collapsed)
        self._parts: list[str] = [text] if text else []
        self._tail = text[-LIVE_THINKING_CHARS:]
        self.live = not text
        self.hidden = False  # Alt+T's "hide thinking": the title stays, the body goes
        self.view = TextBlock(Content.styled(text, styles.THINKING_BODY))
        self.body.append(self.view)

    @property
    def text(self) -> str:
        """All reasoning text so far."""
        return "".join(self._parts)

    @property
    def shown(self) -> str:
        """What the body draws now."""
        return self.view.content.plain

    def add(self, delta: str) -> None:
        """Append reasoning text."""
        self._parts.append(delta)
        self._tail = (self._tail + delta)[-LIVE_THINKING_CHARS:]
        clipped = len(self._tail) == LIVE_THINKING_CHARS
        shown = "…" + self._tail.split("\n", 1)[-1] if clipped else self._tail
        self.view.update(Content.styled(shown, styles.THINKING_BODY))

    def close(self) -> None:
        """The block is complete: draw the whole text once."""
        if self.live:
            self.live = False
            self.view.update(Content.styled(self.text, styles.THINKING_BODY))

    def set_hidden(self, hidden: bool) -> None:
        """Hide the body (the title stays, to unfold on purpose)."""
        if hidden != self.hidden:
            self.hidden = hidden
            self.changed()

    def measure(self, width: int) -> int:
        return 1 if self.hidden else super().measure(width)

    def title_style(self) -> str:
        return styles.THINKING

    # plain_text: the panel's title; the text is its body's (a search counts it once there).


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


class TurnBlock(Panel):
    """One turn. ``turn_start`` opens it, ``turn_end`` writes the summary title.

    Assistant text streams into an :class:`AnswerBlock`, one per text segment: a new one per
    text block and after each tool call.
    """

    margin_top = 1

    def __init__(
        self,
        number: int,
        clock: Callable[[], float],
        *,
        live: bool = True,
        children: list[Block] | None = None,
        title: str = "",
        collapsed: bool = False,
    ) -> None:
        super().__init__(title or f"Turn {number} · running…", collapsed=collapsed)
        self.number = number
        self.clock = clock
        self.started = clock()
        self._deltas = 0  # text and thinking deltas so far (a stall: none for STALL_S)
        self._quiet_since: tuple[int, float] = (0, self.started)
        self.live = live
        self.tools: dict[str, ToolBlock] = {}
        for child in children or []:
            self.body.append(child)
            if isinstance(child, ToolBlock):
                self.tools[child.call_id] = child
        self._segment: AnswerBlock | None = None
        self._segment_index: int | None = None
        self._thinking: ThinkingBlock | None = None
        self._thinking_index: int | None = None
        self._has_output = bool(children)
        self.text = ""  # all assistant text of the turn

    @property
    def has_no_output(self) -> bool:
        """True until the assistant produced anything."""
        return not self._has_output

    def bar_style(self) -> str:
        if self.cursor:
            return styles.CURSOR_BORDER
        return styles.BORDER_LIVE if self.live else styles.BORDER

    def tick(self, now: float) -> None:
        """Spinner and elapsed time in the title of a live turn; its running tools' too."""
        if not self.live:
            return
        doing = "waiting for the model" if self.has_no_output else "running"
        if self._deltas != self._quiet_since[0]:
            self._quiet_since = (self._deltas, now)  # output since the last tick
        quiet = now - self._quiet_since[1]
        running = any(not block.finished for block in self.tools.values())
        if not self.has_no_output and not running and quiet >= STALL_S:
            doing = f"no output for {quiet:.0f}s ·"
        self.set_title(
            f"Turn {self.number} · {spinner_frame(now)} {doing} {now - self.started:.1f}s"
        )
        for block in self.tools.values():
            block.tick(now)

    def _add(self, block: Block) -> None:
        self._has_output = True
        self.body.append(block)
        self.changed()

    def add_text(self, index: int, delta: str) -> None:
        """Stream a text delta into the current segment (a new index starts a new one)."""
        if self._segment is None or self._segment_index != index:
            self.end_segment()
            self._segment = AnswerBlock()
            self._segment_index = index
            self._add(self._segment)
        self.text += delta
        self._deltas += 1
        self._segment.append(delta)

    def end_segment(self) -> None:
        """Close the live Markdown segment or thinking block, if any."""
        self._segment = None
        if self._thinking is not None:
            self._thinking.close()
            self._thinking, self._thinking_index = None, None

    def add_thinking(self, index: int, delta: str, hidden: bool = False) -> None:
        """Append reasoning to the current thinking block (a new index starts a new one)."""
        if self._thinking is None or self._thinking_index != index:
            self.end_segment()
            self._thinking = ThinkingBlock()
            self._thinking.hidden = hidden
            self._thinking_index = index
            self._add(self._thinking)
        self._deltas += 1
        self._thinking.add(delta)

    def add_note(self, text: str, kind: str = "error") -> None:
        """A line inside the turn, where it happened (an error, ``aborted``, a retry)."""
        self.end_segment()
        self._add(NoteBlock(text, kind))

    def tool_started(
        self, call_id: str, name: str, args: Any, title: str = "", rest: Rest = "preview"
    ) -> ToolBlock:
        """Open a tool block; later text goes into a new Markdown segment."""
        self.end_segment()
        block = ToolBlock(call_id, name, args, title, self.clock, rest)
        self.tools[call_id] = block
        self._add(block)
        return block

    def tool_progress(self, call_id: str, text: str) -> None:
        """Live tool output."""
        if call_id in self.tools:
            self.tools[call_id].progress(text)

    def tool_finished(
        self, call_id: str, name: str, text: str, is_error: bool, details: Any
    ) -> ToolBlock:
        """Show a tool's result."""
        if call_id not in self.tools:
            self.tool_started(call_id, name, None)
        block = self.tools[call_id]
        block.finish(text, is_error, details)
        return block

    def finish(self, tools: list[str], input_tokens: int, output_tokens: int) -> None:
        """Close the turn: summary title (number, tools used, tokens, duration)."""
        self.end_segment()
        self.live = False
        seconds = self.clock() - self.started
        self.set_title(turn_title(self.number, tools, (input_tokens, output_tokens), seconds))
        self.redrawn()  # the bar is no longer the live colour

    def plain_text(self) -> str:
        return str(self.title)
