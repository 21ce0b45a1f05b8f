"""The transcript cursor: a visible mark on one block (turn, tool call, thinking, skill, summary)
that Ctrl+Up / Ctrl+Down move while the editor keeps the focus; Ctrl+O and Alt+O act on it.

Without a cursor, Ctrl+O acts on every tool block and Alt+O on the last turn. Esc clears it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.widget import Widget

    from pi_cli.tui.widgets.transcript import Transcript


class TranscriptCursor:
    """Which block the keys act on (``None``: the defaults above)."""

    def __init__(self, transcript: Transcript) -> None:
        self.transcript = transcript
        self.item: Widget | None = None

    def _set(self, item: Widget | None) -> None:
        if self.item is not None:
            self.item.remove_class("-cursor")
        self.item = item
        if item is not None:
            item.add_class("-cursor")
            item.scroll_visible(animate=False)

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
        """Ctrl+O: the block under the cursor (any collapsible block), else all tool blocks."""
        from pi_cli.tui.widgets.tool_block import ToolBlock
        from pi_cli.tui.widgets.turn_panel import TurnPanel

        item = self._live_item()
        if item is not None and not isinstance(item, TurnPanel):
            item_toggle(item)
            return
        scope: Any = item if item is not None else self.transcript
        blocks = list(scope.query(ToolBlock))
        if item is None:
            self.transcript.set_tools_expanded(not self.transcript.tools_expanded)
        elif blocks:
            expand = not all(block.expanded for block in blocks)
            for block in blocks:
                block.set_expanded(expand)

    def toggle_turn(self) -> None:
        """Alt+O: collapse or expand the turn under the cursor (or holding it), else the last."""
        from pi_cli.tui.widgets.turn_panel import TurnPanel

        item = self._live_item()
        panel: Any = item
        while panel is not None and not isinstance(panel, TurnPanel):
            panel = panel.parent
        if panel is None:
            turns = list(self.transcript.query(TurnPanel))
            panel = turns[-1] if turns else None
        if panel is not None:
            panel.toggle()

    def _live_item(self) -> Widget | None:
        if self.item is not None and not self.item.is_attached:
            self._set(None)
        return self.item


def item_toggle(item: Any) -> None:
    """Toggle one block (each cursor item has ``toggle()``)."""
    item.toggle()
