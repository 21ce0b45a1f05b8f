"""TranscriptView: every block of the transcript in one widget that paints only the rows in view.

The view's height is the document's; the transcript (a ``VerticalScroll``) scrolls it. Textual
asks for the rows it shows (``render_line``), each drawn by the block that owns it and cached
until something changes, so a frame costs the rows on screen, whatever the session's length.
A change anywhere (a delta, a spinner tick, a fold) marks the view for one layout pass in the
next frame: deltas arriving meanwhile are parsed once, when the height is asked.

Also here: clicks (a title folds its panel, a tool block expands), the title tint under the
mouse, text selection (the text of rows, never their borders), and what a search needs: every
block in order (:meth:`blocks`), where one is (:meth:`region_of`), unfolding and scrolling to it
(:meth:`reveal`) and painting matches of a query (:meth:`highlight`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from rich.segment import Segment
from textual import events, on
from textual.content import Content
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.selection import Selection
from textual.strip import Strip
from textual.style import Style
from textual.widget import Widget

from pi_cli.tui.document import styles
from pi_cli.tui.document.frames import FramePacer
from pi_cli.tui.document.panel import Panel
from pi_cli.tui.document.rows import Block, Row, Stack, blank

NO_CHANGE = 1 << 62
MAX_STRIPS = 4000  # painted rows kept (a few screens); more are painted again when shown


class Root(Block):
    """The top of the document: the transcript's entries, one gap between two of them."""

    def __init__(self, view: TranscriptView) -> None:
        super().__init__()
        self.view = view
        self.entries = Stack(self)

    def measure(self, width: int) -> int:
        return self.entries.height(width)

    def draw(self, index: int, width: int) -> Row:
        found = self.entries.locate(index, width)
        return blank(width) if found is None else found[0].draw(found[1], width)

    def locate(self, index: int, width: int) -> tuple[Block, int, int] | None:
        found = self.entries.locate(index, width)
        return None if found is None else (found[0], found[1], width)

    def children(self) -> Sequence[Block]:
        return self.entries.items

    def child_changed(self, child: Block) -> None:
        self.entries.dirty(child.slot + 1)
        self._height = None
        self.view.document_changed(child.slot)

    def changed(self) -> None:
        self._height = None
        self.view.document_changed(0)

    def child_redrawn(self, child: Block) -> None:
        self.view.entry_redrawn(child)


def child_start(parent: Block, child: Block, width: int) -> tuple[int, int] | None:
    """(first row of ``child`` in ``parent``, the child's width); ``None`` when folded away."""
    from pi_cli.tui.document.markdown import MarkdownBlock
    from pi_cli.tui.document.tool import ToolBlock
    from pi_cli.tui.document.turn import AnswerBlock

    if isinstance(parent, Root):
        return parent.entries.start(child, width), width
    if isinstance(parent, Panel):
        if parent.collapsed:
            return None
        inner = max(1, width - (1 if parent.bar else 0) - parent.indent)
        return 1 + parent.body_top + parent.body.start(child, inner), inner
    if isinstance(parent, ToolBlock):
        inner = parent._inner(width)
        own = parent.height(width) - (parent.subagents.height(inner) if parent.subagents else 0)
        return own + parent.subagents.start(child, inner), inner
    if isinstance(parent, MarkdownBlock):
        inner = max(1, width - 1) if isinstance(parent, AnswerBlock) else width
        return parent.parts.start(child, inner), inner
    return None


class TranscriptView(Widget, can_focus=False):
    """The document of the transcript, drawn row by row."""

    ALLOW_SELECT = True
    DEFAULT_CSS = "TranscriptView { height: auto; width: 1fr; }"
    # Textual's reflow sets it (a layout and repaint reactive): growing every frame, it asked
    # for a second reflow and paint of the transcript, though that reflow had measured it and
    # marked the rows that moved for painting.
    virtual_size = Reactive(Size(0, 0), layout=False, repaint=False)

    def __init__(self) -> None:
        super().__init__(id="transcript-view")
        self.root = Root(self)
        self._strips: dict[int, Strip] = {}  # painted rows, for ``_strip_width``
        self._strip_width = 0
        self._dirty_entry = NO_CHANGE  # first top-level entry changed since the last paint
        self.frames = FramePacer(self)
        self._styles: dict[str, Style] = {}
        self._hovered: Panel | None = None
        self._query: re.Pattern[str] | None = None

    # ------------------------------------------------------------------ the document

    @property
    def entries(self) -> list[Block]:
        """The top-level blocks, in order."""
        return self.root.entries.items

    def add_entry(self, block: Block, before: Block | None = None) -> None:
        """Add a top-level block at the end (or before ``before``)."""
        index = before.slot if before is not None and before.parent is self.root else None
        index = len(self.entries) if index is None else index
        self.root.entries.insert(index, block)
        self.root.child_changed(block)

    def add_entries(self, blocks: Sequence[Block], before: Block | None = None) -> None:
        """Add several top-level blocks, in order."""
        for block in blocks:
            self.add_entry(block, before)

    def remove_entry(self, block: Block) -> None:
        """Take a top-level block out."""
        if block.parent is self.root:
            index = block.slot
            self.root.entries.remove(block)
            self.root._height = None
            self.document_changed(index)

    def clear_entries(self) -> None:
        """Take every block out."""
        self.root.entries.clear()
        self.root.changed()

    def blocks(self) -> Iterator[Block]:
        """Every block, top to bottom, folded ones and their contents included."""
        for entry in self.entries:
            yield from entry.walk()

    def document_changed(self, entry: int) -> None:
        """Entries from index ``entry`` on look different: paint their rows again (and lay out,
        as a height may have changed). Rows above them keep their painted strips."""
        if entry == 0:
            self._strips.clear()
        else:
            self._dirty_entry = min(self._dirty_entry, entry)
        if self.is_attached:
            self.frames.changed()

    def entry_redrawn(self, entry: Block) -> None:
        """A top-level entry looks different at the same height: paint its rows again."""
        if self._dirty_entry <= entry.slot:
            return  # already to be painted again, and laid out
        width = self._strip_width
        top = self.root.entries.start(entry, width) if width else 0
        height = entry.height(width) if width else 0
        strips = self._strips
        for y in range(top, top + height):
            strips.pop(y, None)
        if self.is_attached and width:
            self.refresh(Region(0, top, width, height))

    def set_throttled(self, throttled: bool) -> None:
        """While a run streams (``True``), lay out and paint at the pace of :mod:`.frames`: a
        fast run changes the transcript far more often than anyone reads it, and every frame
        repaints the rows that moved. Off, a change is drawn in the next frame."""
        self.frames.set_throttled(throttled)

    def _forget_changed_rows(self, width: int) -> None:
        """Drop the strips of rows at or below the first changed entry (known once measured)."""
        entry, self._dirty_entry = self._dirty_entry, NO_CHANGE
        entries = self.root.entries
        if entry >= len(entries):
            top = self.root.height(width)
        else:
            top = entries.start(entries.items[entry], width)
        strips = self._strips
        for y in [y for y in strips if y >= top]:
            del strips[y]

    # ------------------------------------------------------------------ geometry

    @property
    def width(self) -> int:
        """The width the rows are drawn at."""
        # As laid out (``size`` looks the view up in the screen's map: a cost per row painted).
        width = self.outer_size.width - self.styles.gutter.width
        if width > 0:
            return width
        parent = self.parent
        return max(1, parent.size.width if isinstance(parent, Widget) else 80)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return self.root.height(max(1, width))

    def region_of(self, block: Block) -> tuple[int, int] | None:
        """(first row, rows) of ``block`` in the view; ``None`` if a folded panel hides it."""
        chain: list[Block] = []
        node: Block | None = block
        while node is not None and node is not self.root:
            chain.append(node)
            node = node.parent
        if node is not self.root:
            return None
        top, width = 0, self.width
        parent: Block = self.root
        for child in reversed(chain):
            found = child_start(parent, child, width)
            if found is None:
                return None
            top += found[0]
            width = found[1]
            parent = child
        return top, block.height(width)

    def path_at(self, y: int) -> list[tuple[Block, int]]:
        """The blocks drawing row ``y``, outermost first, each with the row inside it."""
        path: list[tuple[Block, int]] = []
        width = self.width
        if not 0 <= y < self.root.height(width):
            return path
        found = self.root.locate(y, width)
        while found is not None:
            block, index, width = found
            path.append((block, index))
            found = block.locate(index, width)
        return path

    def reveal(self, block: Block, *, center: bool = False) -> None:
        """Unfold every panel around ``block`` and scroll it into view."""
        node = block.parent
        while node is not None and node is not self.root:
            if isinstance(node, Panel) and node.collapsed:
                node.set_collapsed(False)
            node = node.parent
        self.call_after_refresh(self.scroll_to_block, block, center)

    def scroll_to_block(self, block: Block, center: bool = False) -> None:
        """Scroll the transcript so that ``block`` is in view (its top when it is taller)."""
        region = self.region_of(block)
        container = self.parent
        if region is None or not isinstance(container, Widget):
            return
        top, height = region
        visible = container.scrollable_content_region.height
        height = max(1, min(height, visible))
        where = Region(0, self.virtual_region.y + top, self.width, height)
        container.scroll_to_region(where, animate=False, center=center, immediate=True)

    def highlight(self, query: str | None) -> None:
        """Paint every match of ``query`` (case-insensitive) in the rows; ``None``: none."""
        self._query = re.compile(re.escape(query), re.IGNORECASE) if query else None
        self._strips.clear()
        self.refresh()

    # ------------------------------------------------------------------ painting

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()
        self._strips.clear()

    def _style(self, style: str | Style) -> Style:
        if isinstance(style, Style):
            return style
        cached = self._styles.get(style)
        if cached is None:
            try:
                cached = Style.parse(style)
            except Exception:  # noqa: BLE001 - a style a theme lacks paints plain, never crashes
                cached = Style()
            self._styles[style] = cached
        return cached

    def render_line(self, y: int) -> Strip:
        width = self.width
        if width != self._strip_width or len(self._strips) > MAX_STRIPS:
            self._strips.clear()
            self._strip_width = width
        if self._dirty_entry != NO_CHANGE:
            self._forget_changed_rows(width)
        strip = self._strips.get(y)
        if strip is None:
            if y >= self.root.height(width):
                return Strip.blank(width, self.rich_style)
            strip = self._strip(self.root.draw(y, width), y)
            if self.text_selection is None:
                self._strips[y] = strip
        return strip

    def _strip(self, row: Row, y: int) -> Strip:
        content, start = row.content, row.start
        end = len(content.plain) if row.end < 0 else row.end
        if self._query is not None:
            for match in self._query.finditer(content.plain, start, end):
                content = content.stylize(styles.SEARCH_MATCH, match.start(), match.end())
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(y)) is not None:
            chosen = self.screen.get_component_styles("screen--selection")
            low, high = span
            high = end - start if high < 0 else high
            content = content.stylize(Style.from_styles(chosen), start + low, start + high)
        base = self.visual_style
        segments: list[Segment] = []
        head, body, tail = (content.divide([start, max(start, end)]) + [Content("")] * 3)[:3]
        parse = self._style
        # Borders and padding before the text carry offset 0, one cell each, so that a
        # selection starting on them starts at the text; after it, the text's end.
        for text, style in head.render(base, end="", parse_style=parse):
            rich = (base + style).rich_style_with_offset(0, y)
            segments += [Segment(char, rich) for char in text]
        x = 0
        for text, style in body.render(base, end="", parse_style=parse):
            segments.append(Segment(text, (base + style).rich_style_with_offset(x, y)))
            x += len(text)
        for text, style in tail.render(base, end="", parse_style=parse):
            segments.append(Segment(text, (base + style).rich_style_with_offset(x, y)))
        return Strip(segments, content.cell_length)

    # ------------------------------------------------------------------ selection

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        width = self.width
        rows = [self.root.draw(y, width).text for y in range(self.root.height(width))]
        return selection.extract("\n".join(rows)), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self._strips.clear()
        self.refresh()

    # ------------------------------------------------------------------ mouse

    def _title_under(self, y: int) -> Panel | None:
        for block, index in reversed(self.path_at(y)):
            if isinstance(block, Panel) and index == 0:
                return block
        return None

    @on(events.Click)
    def _clicked(self, event: events.Click) -> None:
        if self.screen.selections:  # the end of a drag that selected text, not a click
            return
        for block, index in reversed(self.path_at(event.y)):
            if block.hit(index):
                block.toggle()
                return

    @on(events.MouseMove)
    def _moved(self, event: events.MouseMove) -> None:
        self._hover(self._title_under(event.y))

    @on(events.Leave)
    def _left(self) -> None:
        self._hover(None)

    def _hover(self, panel: Panel | None) -> None:
        if panel is not self._hovered:
            if self._hovered is not None:
                self._hovered.set_hover(False)
            self._hovered = panel
            if panel is not None:
                panel.set_hover(True)


__all__ = ["Root", "TranscriptView", "child_start"]
