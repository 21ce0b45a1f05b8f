"""Rows and blocks: the units the transcript document is drawn with.

A :class:`Row` is one terminal line of the transcript, exactly as wide as asked, with the range
of its characters that is text (selectable, searchable) as opposed to decoration (borders,
padding, bullets are text too: they are what a reader copies). A :class:`Block` draws rows; a
:class:`Stack` lays blocks out top to bottom with gaps, keeping their start rows indexed so that
finding row ``k`` is a bisection and a change to its last child re-indexes that child only.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from textual.content import Content

BLANK = Content("")


@dataclass(frozen=True, slots=True)
class Row:
    """One line: ``content`` (exactly the width it was drawn for) and its text range."""

    content: Content
    start: int = 0  # first character that is text (not a border or padding)
    end: int = -1  # one past the last (-1: to the end)

    @property
    def text(self) -> str:
        """The row's text, without decoration."""
        plain = self.content.plain
        return plain[self.start : len(plain) if self.end < 0 else self.end].rstrip()

    def framed(self, left: Content, right: Content | None = None) -> Row:
        """This row with ``left`` (and ``right``) decoration around it."""
        end = self.end if self.end >= 0 else len(self.content.plain)
        body = left + self.content if right is None else left + self.content + right
        shift = len(left.plain)
        return Row(body, self.start + shift, end + shift)

    def under(self, style: str) -> Row:
        """This row with ``style`` beneath its own styles (a background)."""
        return Row(self.content.stylize_before(style), self.start, self.end)


def fit(content: Content, width: int, style: str = "") -> Row:
    """One line of ``content`` padded (or cut) to ``width`` cells, ``style`` beneath it."""
    length = content.cell_length
    if length > width:
        content = content.truncate(width)
    elif length < width:
        content = content.pad_right(width - length)
    end = len(content.plain.rstrip())
    if style:
        content = content.stylize_before(style)
    return Row(content, 0, end)


def blank(width: int, style: str = "") -> Row:
    """An empty row (a gap), ``style`` its background."""
    content = Content(" " * width)
    return Row(content.stylize_before(style) if style else content, 0, 0)


def wrap(content: Content, width: int, style: str = "") -> list[Row]:
    """``content`` word-wrapped to ``width`` (its newlines kept), each row padded to ``width``."""
    width = max(1, width)
    if not content.plain:
        return [fit(content, width, style)]
    if "\n" not in content.plain and content.cell_length <= width:
        return [fit(content, width, style)]
    return [fit(line, width, style) for line in content.wrap(width)]


class Block:
    """Something in the transcript that draws rows.

    Subclasses implement :meth:`measure` and :meth:`draw`; the height is cached per width until
    :meth:`changed` says the block looks different now (which tells its parent, and so on up to
    the view, so a change anywhere repaints and, when a height changed, re-lays out).
    """

    margin_top = 0
    margin_bottom = 0

    def __init__(self) -> None:
        self.parent: Block | None = None
        self.slot = 0  # index in the parent's stack
        self._height: tuple[int, int] | None = None

    # ------------------------------------------------------------------ drawing

    def height(self, width: int) -> int:
        """Rows at ``width`` (cached)."""
        cached = self._height
        if cached is not None and cached[0] == width:
            return cached[1]
        height = self.measure(width)
        self._height = (width, height)
        return height

    def measure(self, width: int) -> int:
        """Rows at ``width`` (computed)."""
        raise NotImplementedError

    def draw(self, index: int, width: int) -> Row:
        """Row ``index`` (``0 <= index < height(width)``) at ``width``."""
        raise NotImplementedError

    def locate(self, index: int, width: int) -> tuple[Block, int, int] | None:
        """The child drawing row ``index``, that row in the child and the child's width
        (``None``: the row is this block's own, a title or a gap)."""
        return None

    # ------------------------------------------------------------------ state

    def changed(self) -> None:
        """This block looks different: drop cached heights here and above."""
        self._height = None
        parent = self.parent
        if parent is not None:
            parent.child_changed(self)

    def child_changed(self, child: Block) -> None:
        """A child looks different (composite blocks re-index it)."""
        self.changed()

    def redrawn(self) -> None:
        """This block looks different but keeps its height (a title, a spinner, the cursor):
        its rows are painted again, nothing is laid out."""
        parent = self.parent
        if parent is not None:
            parent.child_redrawn(self)

    def child_redrawn(self, child: Block) -> None:
        """A child looks different at the same height."""
        self.redrawn()

    def tick(self, now: float) -> None:
        """Animate (a spinner, an elapsed time) a few times a second; most blocks are still."""

    def children(self) -> Sequence[Block]:
        """The blocks inside this one (all of them, folded or not)."""
        return ()

    def walk(self) -> Iterator[Block]:
        """This block and every block inside it, top to bottom."""
        yield self
        for child in self.children():
            yield from child.walk()

    def plain_text(self) -> str:
        """The block's own text (not its children's): what a search looks in."""
        return ""

    def hit(self, index: int) -> bool:
        """A click on own row ``index`` acts on this block (a title toggles its panel)."""
        return False

    def toggle(self) -> None:
        """What a click or the keys do to this block (fold, expand)."""


class Stack:
    """Blocks top to bottom, ``gap(previous, next)`` blank rows between two of them.

    Start rows are kept for the last width asked; a changed child re-indexes from itself on, so
    appending to the last child of a long stack costs one child, not the stack.
    """

    def __init__(self, owner: Block) -> None:
        self.owner = owner
        self.items: list[Block] = []
        self._starts: list[int] = []  # start row of items[i] for i < len(_starts)
        self._width = -1
        self._total = 0

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Block]:
        return iter(self.items)

    def append(self, block: Block) -> None:
        """Add ``block`` at the end."""
        self.insert(len(self.items), block)

    def insert(self, index: int, block: Block) -> None:
        """Add ``block`` before position ``index``."""
        block.parent = self.owner
        self.items.insert(index, block)
        for slot in range(index, len(self.items)):
            self.items[slot].slot = slot
        self.dirty(index)

    def remove(self, block: Block) -> None:
        """Take ``block`` out."""
        index = self.items.index(block)
        del self.items[index]
        block.parent = None
        for slot in range(index, len(self.items)):
            self.items[slot].slot = slot
        self.dirty(index)

    def clear(self) -> None:
        """Take every block out."""
        for block in self.items:
            block.parent = None
        self.items.clear()
        self.dirty(0)

    def dirty(self, index: int) -> None:
        """Heights from ``index`` on must be measured again."""
        del self._starts[index:]

    @staticmethod
    def gap(previous: Block, following: Block) -> int:
        """Blank rows between two neighbours (margins collapse, as in CSS)."""
        return max(previous.margin_bottom, following.margin_top)

    def _index(self, width: int) -> None:
        if width != self._width:
            self._starts.clear()
            self._width = width
        starts, items = self._starts, self.items
        if len(starts) == len(items):
            return
        if starts:
            last = len(starts) - 1
            row = starts[last] + items[last].height(width)
        else:
            last, row = -1, 0
        for index in range(last + 1, len(items)):
            if index:
                row += self.gap(items[index - 1], items[index])
            starts.append(row)
            row += items[index].height(width)
        self._total = row

    def height(self, width: int) -> int:
        """All rows at ``width``."""
        if not self.items:
            return 0
        self._index(width)
        last = len(self.items) - 1
        self._total = self._starts[last] + self.items[last].height(width)
        return self._total

    def start(self, block: Block, width: int) -> int:
        """The first row of ``block`` (one of the stack's)."""
        self._index(width)
        return self._starts[block.slot]

    def locate(self, index: int, width: int) -> tuple[Block, int] | None:
        """(the block drawing row ``index``, that row in it); ``None`` in a gap."""
        self._index(width)
        position = bisect_right(self._starts, index) - 1
        if position < 0:
            return None
        block = self.items[position]
        inside = index - self._starts[position]
        if inside >= block.height(width):
            return None
        return block, inside
