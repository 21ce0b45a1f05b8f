"""pi's Markdown: Textual's widget with link URLs shown and tables that honour their alignment.

* Links: a markdown-it core rule appends `` (url)`` after a link whose text is not the URL
  itself, so the address can be read and copied in any terminal (tmux has no OSC 8).
* Tables: drawn by :class:`TableView` with box lines, right/centre alignment from ``---:`` /
  ``:---:``, and columns sized by their content (the widest shrinks first, cells wrap).
* Code fences wrap their long lines (CSS in ``app.tcss``), instead of clipping them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets._markdown import MarkdownBlock, MarkdownTable, MarkdownTD, MarkdownTH

Align = Literal["left", "center", "right"]
MIN_COLUMN = 3


def _show_link_urls(state: StateCore) -> None:
    """Core rule: ``[text](url)`` becomes ``text (url)`` (the text keeps its link style)."""
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        href, text = None, ""
        for child in block.children:
            children.append(child)
            if child.type == "link_open":
                href, text = str(child.attrs.get("href", "")), ""
            elif child.type == "link_close" and href is not None:
                shown = text.strip()
                if (
                    href
                    and not href.startswith("#")
                    and shown not in (href, href.removeprefix("mailto:"))
                ):
                    extra = Token("text", "", 0)
                    extra.content = f" ({href})"
                    children.append(extra)
                href = None
            elif href is not None and child.type in ("text", "code_inline"):
                text += child.content
        block.children = children


def pi_parser() -> MarkdownIt:
    """The parser every pi Markdown widget uses."""
    parser = MarkdownIt("gfm-like")
    parser.core.ruler.push("pi_link_urls", _show_link_urls)
    return parser


def _align(token: Token) -> Align:
    style = str(token.attrs.get("style", ""))
    if "right" in style:
        return "right"
    return "center" if "center" in style else "left"


class PiTH(MarkdownTH):
    """A header cell that remembers its column's alignment."""

    def __init__(self, markdown: Markdown, token: Token, *args: Any, **kwargs: Any) -> None:
        super().__init__(markdown, token, *args, **kwargs)
        self.align = _align(token)


class PiTD(MarkdownTD):
    """A body cell that remembers its alignment."""

    def __init__(self, markdown: Markdown, token: Token, *args: Any, **kwargs: Any) -> None:
        super().__init__(markdown, token, *args, **kwargs)
        self.align = _align(token)


def _cells(block: MarkdownBlock) -> Iterable[MarkdownBlock]:
    # The parser fills a block's children into ``_blocks`` before it is mounted (read only).
    for child in block._blocks:
        yield child
        yield from _cells(child)


class PiTable(MarkdownTable):
    """A Markdown table drawn by :class:`TableView`."""

    def compose(self) -> Any:
        headers: list[Content] = []
        aligns: list[Align] = []
        rows: list[list[Content]] = []
        for cell in _cells(self):
            if isinstance(cell, PiTH):
                headers.append(cell._content)  # the cell's parsed inline content
                aligns.append(cell.align)
            elif cell.name == "tr_open":
                rows.append([])
            elif isinstance(cell, PiTD) and rows:
                rows[-1].append(cell._content)
        yield TableView(headers, [row for row in rows if row], aligns)


class TableView(Widget):
    """A table as box-drawn lines, laid out for the width it gets."""

    DEFAULT_CSS = "TableView { height: auto; width: 1fr; }"

    def __init__(self, headers: list[Content], rows: list[list[Content]], aligns: list[Align]):
        super().__init__(classes="md-table")
        self.headers, self.rows, self.aligns = headers, rows, aligns
        self._cache: tuple[int, Content] | None = None

    def layout_for(self, width: int) -> Content:
        """The whole table for ``width`` cells (cached per width)."""
        if self._cache is not None and self._cache[0] == width:
            return self._cache[1]
        content = table_content(self.headers, self.rows, self.aligns, width)
        self._cache = (width, content)
        return content

    def render(self) -> Content:
        return self.layout_for(self.content_size.width or self.size.width or 80)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.layout_for(width).plain.split("\n"))


def column_widths(natural: list[int], available: int) -> list[int]:
    """Shrink the widest columns first until the sum fits ``available`` (never below 3)."""
    widths = list(natural)
    while sum(widths) > available:
        widest = max(range(len(widths)), key=lambda i: widths[i])
        if widths[widest] <= MIN_COLUMN:
            break
        widths[widest] -= 1
    return widths


def table_content(
    headers: list[Content], rows: list[list[Content]], aligns: list[Align], width: int
) -> Content:
    """Box-drawn lines of a table fitting ``width`` cells where it can."""
    columns = max([len(headers), *(len(row) for row in rows)] or [1])
    headers = headers + [Content("")] * (columns - len(headers))
    aligns = aligns + ["left"] * (columns - len(aligns))
    body = [row + [Content("")] * (columns - len(row)) for row in rows]
    natural = [max(1, *(r[i].cell_length for r in [headers, *body])) for i in range(columns)]
    widths = column_widths(natural, max(columns, width - 3 * columns - 1))
    border = "$md-table-border"

    def rule(left: str, mid: str, right: str) -> Content:
        return Content.styled(left + mid.join("─" * (w + 2) for w in widths) + right, border)

    def line(cells: list[Content], header: bool) -> list[Content]:
        wrapped = [cell.wrap(widths[i]) or [Content("")] for i, cell in enumerate(cells)]
        out = []
        for row in range(max(len(w) for w in wrapped)):
            parts: list[Content] = [Content.styled("│", border)]
            for i, lines in enumerate(wrapped):
                text = lines[row] if row < len(lines) else Content("")
                text = _aligned(text, widths[i], aligns[i])
                parts += [Content(" "), text.stylize("bold $md-table-header") if header else text]
                parts += [Content(" "), Content.styled("│", border)]
            out.append(Content.assemble(*parts))
        return out

    lines = [rule("┌", "┬", "┐"), *line(headers, True), rule("├", "┼", "┤")]
    for row in body:
        lines += line(row, False)
    lines.append(rule("└", "┴", "┘"))
    return Content("\n").join(lines)


def _aligned(text: Content, width: int, align: Align) -> Content:
    text = text.rstrip()
    if align == "right":
        return text.right(width)
    gap = max(0, width - text.cell_length)
    if align == "center":
        return text.pad(gap // 2, gap - gap // 2)
    return text.pad_right(gap)


class PiMarkdown(Markdown):
    """Markdown with pi's link and table rendering (see the module docstring)."""

    BLOCKS = {**Markdown.BLOCKS, "table_open": PiTable, "th_open": PiTH, "td_open": PiTD}

    def __init__(self, markdown: str | None = None, **kwargs: Any) -> None:
        super().__init__(markdown, parser_factory=pi_parser, **kwargs)


__all__ = ["PiMarkdown", "TableView", "pi_parser", "table_content"]
