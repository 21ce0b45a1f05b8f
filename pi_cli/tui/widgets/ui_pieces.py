"""Extensions' pieces of UI around the editor: a panel above it and status lines under it.

Each holds its pieces by key (``<extension>.<name>``) in the order they were first set, and is
hidden while it has none. The texts arrive cleaned (:mod:`pi_cli.tui.bridge`).
"""

from __future__ import annotations

from textual.content import Content
from textual.widget import Widget

MAX_LINES = 12


class UiPieces(Widget):
    """Lines set by extensions, by key; hidden when empty."""

    DEFAULT_CSS = """
    UiPieces { height: auto; max-height: 12; padding: 0 1; display: none; }
    UiPieces.-shown { display: block; }
    UiPieces#ext-panel { border-left: wide $border; color: $notice-text; }
    UiPieces#ext-status { color: $hint-text; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.pieces: dict[str, list[str]] = {}

    def set_piece(self, key: str, lines: list[str] | None) -> None:
        """Set (``None``: remove) the lines of ``key``."""
        if lines is None:
            self.pieces.pop(key, None)
        else:
            self.pieces[key] = lines
        self.set_class(bool(self.lines()), "-shown")
        self.refresh(layout=True)

    def lines(self) -> list[str]:
        """What is drawn: every piece's lines, at most :data:`MAX_LINES` in all."""
        every = [line for lines in self.pieces.values() for line in lines]
        if len(every) > MAX_LINES:
            every = [*every[: MAX_LINES - 1], f"… {len(every) - MAX_LINES + 1} more lines"]
        return every

    def render(self) -> Content:
        return Content("\n".join(self.lines()))
