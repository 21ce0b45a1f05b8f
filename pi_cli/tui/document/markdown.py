"""An assistant answer as Markdown rows, parsed as it streams without re-parsing what is done.

:class:`MarkdownBlock` keeps the answer's top-level Markdown blocks (a paragraph, a list, a code
fence, a table...) as children. Appending text re-parses only from the start of the last one
(whatever follows cannot change the blocks before it), so a 20,000-word answer costs its last
block per frame, not the whole answer; and parsing waits until the view asks for the height
(once per frame), however many deltas arrived meanwhile.

The look follows Textual's Markdown widget: headings in the theme's heading colours with a gap
above, bullets ``• ▪ ‣ ⭑ ◦`` by depth, numbered items aligned, quotes with a bar, code fences
highlighted on ``$md-code-bg`` (long lines wrap), tables box-drawn (:mod:`.markdown_text`).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from markdown_it import MarkdownIt
from markdown_it.token import Token
from textual.content import Content

from pi_cli.tui.document import styles
from pi_cli.tui.document.markdown_text import inline_content, pi_parser, table_content, table_parts
from pi_cli.tui.document.rows import Block, Row, Stack, blank, fit, wrap

BULLETS = ("• ", "▪ ", "‣ ", "⭑ ", "◦ ")


@cache
def _parser() -> MarkdownIt:
    return pi_parser()


DIFF_LANGUAGES = frozenset({"diff", "patch", "udiff"})


def diff_fence(code: str) -> Content:
    """A ```` ```diff ```` fence in the colours of an edit's diff (the highlighter's theme has
    none for inserted and deleted lines): ``+`` green, ``-`` red, headers bold."""
    parts = []
    for line in code.split("\n"):
        if line.startswith(("+++", "---")):
            style = "bold $diff-context"
        elif line.startswith("+"):
            style = "$diff-add on $diff-add-bg"
        elif line.startswith("-"):
            style = "$diff-remove on $diff-remove-bg"
        elif line.startswith("@@"):
            style = "bold $diff-context"
        else:
            style = "$diff-context"
        parts.append(Content.styled(line, style))
    return Content("\n").join(parts)


def code_content(code: str, language: str) -> Content:
    """A fence's code, highlighted with Textual's theme-aware highlighter (a diff in the
    colours of an edit's diff)."""
    from textual.highlight import HighlightTheme, highlight

    code = code.rstrip("\n")
    if language.lower() in DIFF_LANGUAGES:
        return diff_fence(code)
    try:
        return highlight(code, language=language or None, theme=HighlightTheme)
    except Exception:  # noqa: BLE001 - a lexer bug must not lose the code: show it plain
        return Content(code)


WARM_LANGUAGES = ("python", "bash", "json", "javascript", "typescript", "rust", "go")


def warm_highlighter() -> None:
    """Load the highlighter and the lexers of the commonest fences (~0.15 s, once per
    process), so the first code block of an answer does not stall it."""
    for language in WARM_LANGUAGES:
        code_content("x = 1", language)


def render_tokens(tokens: Sequence[Token], width: int, depth: int = 0) -> list[Row]:
    """The rows of a run of block tokens (a top-level block, or a list item's content),
    ``depth`` the list nesting (bullets change with it). Blocks inside it touch (no gaps)."""
    rows: list[Row] = []
    for block in top_level(tokens):
        rows += render_block(block, width, depth)
    return rows


def top_level(tokens: Sequence[Token]) -> list[list[Token]]:
    """``tokens`` split into their outermost blocks (each a list of tokens, opening to closing)."""
    blocks: list[list[Token]] = []
    depth = 0
    for token in tokens:
        if depth == 0:
            blocks.append([token])
        else:
            blocks[-1].append(token)
        depth += token.nesting
        depth = max(depth, 0)
    return blocks


def render_block(block: Sequence[Token], width: int, depth: int = 0) -> list[Row]:
    """The rows of one block (its tokens, opening to closing)."""
    first = block[0]
    kind = first.type
    if kind == "paragraph_open":
        return wrap(inline_content(_inline(block)), width)
    if kind == "heading_open":
        content = inline_content(_inline(block)).stylize_before(styles.HEADINGS.get(first.tag, ""))
        return wrap(content, width)
    if kind in ("bullet_list_open", "ordered_list_open"):
        return _list_rows(block, width, depth)
    if kind == "blockquote_open":
        inner = render_tokens(block[1:-1], max(1, width - 2), depth)
        bar = Content.styled("▌", styles.QUOTE_BAR)
        return [row.framed(bar + Content(" ")).under(styles.QUOTE) for row in inner]
    if kind in ("fence", "code_block"):
        return _code_rows(first, width)
    if kind == "hr":
        return [fit(Content.styled("─" * width, styles.RULE), width)]
    if kind == "table_open":
        headers, body, aligns = table_parts(list(block))
        lines = table_content(headers, body, aligns, width).split("\n")
        return [fit(line, width) for line in lines]
    if kind == "html_block":
        return wrap(Content(first.content.rstrip("\n")), width)
    if kind == "inline":
        return wrap(inline_content(first), width)
    return []


def _inline(block: Sequence[Token]) -> Token | None:
    return block[1] if len(block) > 1 and block[1].type == "inline" else None


def _code_rows(token: Token, width: int) -> list[Row]:
    style = styles.CODE_BG
    code = code_content(token.content, token.info.strip().split(" ")[0] if token.info else "")
    rows = [blank(width, style)]
    rows += wrap(code, width, style)
    rows.append(blank(width, style))
    return rows


def _list_rows(block: Sequence[Token], width: int, depth: int) -> list[Row]:
    items = _items(block[1:-1])
    ordered = block[0].type == "ordered_list_open"
    start = int(block[0].attrs.get("start", 1) or 1) if ordered else 1
    if ordered:
        marks = [f"{start + n}. " for n in range(len(items))]
        size = max(len(mark) for mark in marks)
        marks = [mark.rjust(size) for mark in marks]
    else:
        marks = [BULLETS[depth % len(BULLETS)]] * len(items)
    rows: list[Row] = []
    for mark, item in zip(marks, items, strict=True):
        inner = render_tokens(item, max(1, width - len(mark)), depth + 1) or [blank(width)]
        bullet = Content.styled(mark, styles.BULLET)
        indent = Content(" " * len(mark))
        for index, row in enumerate(inner):
            framed = row.framed(bullet if index == 0 else indent)
            rows.append(Row(framed.content, 0, framed.end))  # the bullet is copied too
    return rows


def _items(tokens: Sequence[Token]) -> list[list[Token]]:
    """The content tokens of each ``list_item`` in a list's tokens."""
    return [item[1:-1] for item in top_level(tokens) if item[0].type == "list_item_open"]


class MarkdownPart(Block):
    """One top-level Markdown block, rendered once per width."""

    def __init__(self, tokens: list[Token]) -> None:
        super().__init__()
        self.tokens = tokens
        kind = tokens[0].type
        self.margin_bottom = 1
        if kind == "heading_open":
            self.margin_top = 1
        elif kind in ("fence", "code_block", "table_open", "blockquote_open", "hr"):
            self.margin_top = 1
        self._rows: tuple[int, list[Row]] | None = None

    def rows(self, width: int) -> list[Row]:
        """All rows at ``width`` (cached)."""
        if self._rows is None or self._rows[0] != width:
            self._rows = (width, render_block(self.tokens, width) or [blank(width)])
        return self._rows[1]

    def measure(self, width: int) -> int:
        return len(self.rows(width))

    def draw(self, index: int, width: int) -> Row:
        return self.rows(width)[index]


class MarkdownBlock(Block):
    """Assistant text drawn as Markdown; :meth:`append` while it streams."""

    def __init__(self, text: str = "") -> None:
        super().__init__()
        self.source = text
        self.parts = Stack(self)
        self._stable = 0  # parts before this index never change
        self._tail_at = 0  # offset in ``source`` where the changing tail starts
        self._parsed = False

    def append(self, delta: str) -> None:
        """More text (parsed when next drawn)."""
        if delta:
            self.source += delta
            self._parsed = False
            self.changed()

    def _parse(self) -> None:
        """Re-parse the tail: its blocks but the last become stable."""
        self._parsed = True
        tail = self.source[self._tail_at :]
        blocks = top_level(_parser().parse(tail))
        for part in self.parts.items[self._stable :]:
            self.parts.remove(part)
        if not blocks:
            return
        for block in blocks[:-1]:
            self.parts.append(MarkdownPart(block))
        self._stable = len(self.parts)
        last_line = blocks[-1][0].map[0] if blocks[-1][0].map else 0
        self._tail_at += _offset_of_line(tail, last_line)
        self.parts.append(MarkdownPart(blocks[-1]))

    def measure(self, width: int) -> int:
        if not self._parsed:
            self._parse()
        return self.parts.height(width)

    def draw(self, index: int, width: int) -> Row:
        found = self.parts.locate(index, width)
        if found is None:
            return blank(width)
        part, inside = found
        return part.draw(inside, width)

    def locate(self, index: int, width: int) -> tuple[Block, int, int] | None:
        found = self.parts.locate(index, width)
        return None if found is None else (found[0], found[1], width)

    def child_changed(self, child: Block) -> None:
        self.parts.dirty(child.slot + 1)
        self.changed()

    def plain_text(self) -> str:
        return self.source


def _offset_of_line(text: str, line: int) -> int:
    """The character offset where line ``line`` (0-based) of ``text`` starts."""
    offset = 0
    for _ in range(line):
        found = text.find("\n", offset)
        if found < 0:
            return len(text)
        offset = found + 1
    return offset
