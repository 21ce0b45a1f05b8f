"""A titled block that folds: the frame of turns, thinking, summaries, skill calls, sub-agents.

Row 0 is the title (``▼ Turn 3 · bash · …``, ``▶`` when folded); the body's blocks follow, shifted
right past an optional bar (``▎``, the panel's border) and an indent. A click on the title folds
or unfolds; the transcript cursor tints the whole panel and underlines its title.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.content import Content

from pi_cli.tui.document import styles
from pi_cli.tui.document.rows import Block, Row, Stack, blank, fit

BAR = "▎"


class Panel(Block):
    """Title plus a body :class:`Stack`; subclasses set the geometry and styles."""

    bar = True  # a border bar on the left of every row
    title_pad = 1  # spaces either side of the title
    indent = 1  # body columns after the bar
    body_top = 0  # blank rows between the title and the body

    def __init__(self, title: str | Content = "", *, collapsed: bool = False) -> None:
        super().__init__()
        self.title: str | Content = title
        self.collapsed = collapsed
        self.body = Stack(self)
        self.cursor = False  # the transcript cursor is on this panel
        self.hover = False  # the mouse is over the title

    # ------------------------------------------------------------------ state

    def set_title(self, title: str | Content) -> None:
        """Change the title (a live turn's spinner, a finished turn's summary)."""
        if title != self.title:
            self.title = title
            self.redrawn()  # one row, cut to the width: the height stays

    def toggle(self) -> None:
        """Fold or unfold."""
        self.collapsed = not self.collapsed
        self.changed()

    def set_collapsed(self, collapsed: bool) -> None:
        """Fold (``True``) or unfold."""
        if collapsed != self.collapsed:
            self.toggle()

    def set_cursor(self, on: bool) -> None:
        """Show or hide the transcript cursor on this panel."""
        if on != self.cursor:
            self.cursor = on
            self.redrawn()

    def set_hover(self, on: bool) -> None:
        """Tint the title while the mouse is over it."""
        if on != self.hover:
            self.hover = on
            self.redrawn()

    def children(self) -> Sequence[Block]:
        return self.body.items

    def child_changed(self, child: Block) -> None:
        self.body.dirty(child.slot + 1)
        self.changed()

    def hit(self, index: int) -> bool:
        return index == 0

    # ------------------------------------------------------------------ styles

    def bar_style(self) -> str:
        """The bar's colour."""
        return styles.CURSOR_BORDER if self.cursor else styles.BORDER

    def title_style(self) -> str:
        """The title's colour."""
        return styles.TURN_TITLE

    # ------------------------------------------------------------------ drawing

    def _left(self) -> int:
        return (1 if self.bar else 0) + self.indent

    def measure(self, width: int) -> int:
        if self.collapsed or not self.body.items:
            return 1
        return 1 + self.body_top + self.body.height(max(1, width - self._left()))

    def draw(self, index: int, width: int) -> Row:
        row = self._title_row(width) if index == 0 else self._body_row(index - 1, width)
        return row.under(styles.CURSOR_BG) if self.cursor else row

    def locate(self, index: int, width: int) -> tuple[Block, int, int] | None:
        inner = max(1, width - self._left())
        if self.collapsed or index < 1 + self.body_top:
            return None
        found = self.body.locate(index - 1 - self.body_top, inner)
        return None if found is None else (found[0], found[1], inner)

    def _bar(self) -> Content:
        return Content.styled(BAR, self.bar_style()) if self.bar else Content("")

    def _title_row(self, width: int) -> Row:
        symbol = "▶" if self.collapsed else "▼"
        title = self.title if isinstance(self.title, Content) else Content(self.title)
        text = Content.assemble(f"{symbol} ", title).stylize_before(self.title_style())
        pad = Content(" " * self.title_pad)
        label = pad + text + pad
        if self.cursor:
            label = label.stylize(styles.CURSOR_TITLE, len(pad.plain), len(label.plain))
        if self.hover:
            label = label.stylize_before(styles.HOVER_BG)
        bar = self._bar()
        row = fit(label, max(1, width - bar.cell_length))
        return Row(row.content, self.title_pad, row.end).framed(bar)

    def _body_row(self, index: int, width: int) -> Row:
        left = self._bar() + Content(" " * self.indent)
        inner = max(1, width - self._left())
        if index < self.body_top:
            return blank(inner).framed(left)
        found = self.body.locate(index - self.body_top, inner)
        row = blank(inner) if found is None else found[0].draw(found[1], inner)
        return row.framed(left)
