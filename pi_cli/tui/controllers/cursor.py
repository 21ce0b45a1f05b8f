"""The transcript cursor: a visible mark on one block (turn, tool call, thinking, skill, summary)
that Ctrl+Up / Ctrl+Down move while the editor keeps the focus; Ctrl+O and Alt+O act on it.

Without a cursor, Ctrl+O acts on every tool block and Alt+O on the last turn. Esc clears it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_cli.tui.document.rows import Block
    from pi_cli.tui.widgets.transcript import Transcript


class TranscriptCursor:
    """Which block the keys act on (``None``: the defaults above)."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self.item: Block | None = None

    def _set(self, item: Block | None) -> None:
        if self.item is not None:
            _mark(self.item, False)
        self.item = item
        if item is not None:
            _mark(item, True)
            view = self.transcript.view
            view.call_after_refresh(view.scroll_to_block, item)

    def move(self, step: int) -> None:
        """To the previous (-1) or next (+1) block; from nothing, up starts at the last one."""
        items = self.transcript.cursor_items()
        if not items:
            return
        if self.item is None or self.item not in items:
            self._set(items[-1] if step < 0 else items[0])
            return
        index = items.index(self.item) + step
        self._set(items[max(0, min(index, len(items) - 1))])

    def clear(self) -> bool:
        """Remove the cursor; False if there was none."""
        had = self.item is not None
        self._set(None)
        return had

    def toggle_tools(self) -> None:
        """Ctrl+O: the block under the cursor (any folding block), else all tool blocks."""
        from pi_cli.tui.document.turn import TurnBlock

        item = self._live_item()
        if item is not None and not isinstance(item, TurnBlock):
            item.toggle()
            return
        if item is None:
            self.transcript.set_tools_expanded(not self.transcript.tools_expanded)
            return
        blocks = self.transcript.tool_blocks(item)
        if blocks:
            expand = not all(block.expanded for block in blocks)
            for block in blocks:
                block.set_expanded(expand)

    def toggle_turn(self) -> None:
        """Alt+O: fold or unfold the turn under the cursor (or holding it), else the last."""
        from pi_cli.tui.document.turn import TurnBlock

        item = self._live_item()
        panel: Block | None = item
        while panel is not None and not isinstance(panel, TurnBlock):
            panel = panel.parent
        if panel is None:
            turns = [b for b in self.transcript.view.entries if isinstance(b, TurnBlock)]
            panel = turns[-1] if turns else None
        if panel is not None:
            panel.toggle()

    def _live_item(self) -> Block | None:
        """The cursor's block, dropped if it left the transcript (a /new, a removed turn)."""
        item = self.item
        if item is not None:
            node: Block | None = item
            while node is not None and node.parent is not None:
                node = node.parent
            if node is not self.transcript.view.root:
                self._set(None)
        return self.item


def _mark(item: Any, on: bool) -> None:
    """Show or hide the cursor on a block (each cursor item has ``set_cursor``)."""
    item.set_cursor(on)
