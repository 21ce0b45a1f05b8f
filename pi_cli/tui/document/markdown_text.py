"""Markdown pieces that need no layout: pi's parser, inline text, tables as box-drawn lines.

* Links: a markdown-it core rule appends `` (url)`` after a link whose text is not the URL
  itself, so the address can be read and copied in any terminal (tmux has no OSC 8).
* Tables: box lines, right/centre alignment from ``---:`` / ``:---:``, columns sized by their
  content (the widest shrinks first, cells wrap).
"""

from __future__ import annotations

import re
from typing import Literal

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from textual.content import Content, Span

from pi_cli.tui.document import styles

Align = Literal["left", "center", "right"]
MIN_COLUMN = 3
_SPACES = re.compile(r"\s+")
INLINE_STYLES = {
    "em_open": "italic",
    "strong_open": "bold",
    "s_open": "strike",
    "link_open": styles.LINK,
}


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
    """The parser every pi Markdown answer goes through."""
    parser = MarkdownIt("gfm-like")
    parser.core.ruler.push("pi_link_urls", _show_link_urls)
    return parser


def inline_content(token: Token | None) -> Content:
    """An ``inline`` token's children as styled text (as Textual's Markdown widget draws them)."""
    if token is None or not token.children:
        return Content("")
    parts: list[str] = []
    spans: list[Span] = []
    opened: list[tuple[str, int]] = []
    position = 0

    def add(text: str) -> None:
        nonlocal position
        parts.append(text)
        position += len(text)

    for child in token.children:
        kind = child.type
        if kind == "text":
            add(_SPACES.sub(" ", child.content))
        elif kind == "softbreak":
            add(" ")
        elif kind == "hardbreak":
            add("\n")
        elif kind == "code_inline":
            spans.append(Span(position, position + len(child.content), styles.CODE_INLINE))
            add(child.content)
        elif kind in ("html_inline", "text_special"):
            add(child.content)
        elif kind == "image":
            alt = child.content or str(child.attrs.get("alt", ""))
            add(f"[image: {alt}]" if alt else "[image]")
        elif kind in INLINE_STYLES:
            opened.append((INLINE_STYLES[kind], position))
        elif kind.endswith("_close") and opened:
            style, start = opened.pop()
            spans.append(Span(start, position, style))
    return Content("".join(parts), spans=spans)


def table_parts(tokens: list[Token]) -> tuple[list[Content], list[list[Content]], list[Align]]:
    """(headers, body rows, column alignments) of a table's tokens."""
    headers: list[Content] = []
    aligns: list[Align] = []
    rows: list[list[Content]] = []
    in_head = False
    for index, token in enumerate(tokens):
        kind = token.type
        if kind == "thead_open":
            in_head = True
        elif kind == "thead_close":
            in_head = False
        elif kind == "tr_open" and not in_head:
            rows.append([])
        elif kind in ("th_open", "td_open"):
            inline = tokens[index + 1] if index + 1 < len(tokens) else None
            cell = inline_content(
                inline if inline is not None and inline.type == "inline" else None
            )
            if in_head:
                headers.append(cell)
                aligns.append(_align(token))
            elif rows:
                rows[-1].append(cell)
    return headers, [row for row in rows if row], aligns


def _align(token: Token) -> Align:
    style = str(token.attrs.get("style", ""))
    if "right" in style:
        return "right"
    return "center" if "center" in style else "left"


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
    border = styles.TABLE_BORDER

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
                parts += [
                    Content(" "),
                    text.stylize(styles.TABLE_HEADER) if header else text,
                ]
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
