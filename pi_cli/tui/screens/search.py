"""Transcript search (Ctrl+F): incremental, next / previous, every match highlighted, and a match
inside a folded tool output, thinking block or turn unfolds it and scrolls to it.

A bar at the bottom over the transcript (a modal screen with a transparent background: the
transcript stays in view and keeps drawing a live run). Matches are counted per occurrence in
each block's own text (:meth:`Block.plain_text`: an answer's Markdown source, a tool call's title
and whole output, a thinking block's text), top to bottom; the first is the first match at or
below the top of the screen.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from pi_cli.tui.keymap import bindings
from pi_cli.tui.widgets.key_hints import KeyHints

if TYPE_CHECKING:
    from pi_cli.tui.document.rows import Block
    from pi_cli.tui.document.view import TranscriptView

Match = tuple["Block", int]  # the block and which of its occurrences


def find_matches(view: TranscriptView, query: str) -> list[Match]:
    """Every occurrence of ``query`` (case-insensitive), block by block, top to bottom."""
    if not query:
        return []
    pattern = re.compile(re.escape(query), re.IGNORECASE)
    found: list[Match] = []
    for block in view.blocks():
        count = len(pattern.findall(block.plain_text()))
        found.extend((block, k) for k in range(count))
    return found


class SearchScreen(ModalScreen[None]):
    """Type to search; Enter / ↓ next, Shift+Enter / ↑ previous, Esc closes."""

    BINDINGS = bindings("search")
    DEFAULT_CSS = """
    SearchScreen { align: center bottom; }
    SearchScreen #search-box {
        width: 100%; height: auto; padding: 0 1;
        border-top: solid $border-active; background: $surface;
    }
    SearchScreen #search-row { height: auto; }
    SearchScreen #search-input { border: none; height: 1; padding: 0; }
    SearchScreen #search-status { color: $hint-text; }
    SearchScreen KeyHints { margin-top: 0; }
    """

    def __init__(self, view: TranscriptView) -> None:
        super().__init__()
        self.view = view
        self.matches: list[Match] = []
        self.index = -1

    def compose(self) -> ComposeResult:
        with Vertical(id="search-box"):
            yield Input(placeholder="search the transcript", id="search-input")
            yield Label("", id="search-status")
            yield KeyHints(
                [("Enter ↓", "Next"), ("↑", "Previous"), ("Esc", "Close")],
                id="search-hints",
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Changed, "#search-input")
    def _changed(self, event: Input.Changed) -> None:
        query = event.value
        self.view.highlight(query or None)
        self.matches = find_matches(self.view, query)
        self.index = -1
        if self.matches:
            self._go(self._first_in_view())
        self._say()

    def _first_in_view(self) -> int:
        """The first match at or below the top of what is shown (else the first)."""
        container = self.view.parent
        top = getattr(container, "scroll_y", 0)
        for number, (block, _) in enumerate(self.matches):
            region = self.view.region_of(block)
            if region is not None and region[0] >= top:
                return number
        return 0

    def _go(self, index: int) -> None:
        self.index = index % len(self.matches)
        self.view.reveal(self.matches[self.index][0], center=True)
        self._say()

    def _say(self) -> None:
        query = self.query_one(Input).value
        status = self.query_one("#search-status", Label)
        if not query:
            status.update("")
        elif not self.matches:
            status.update(f"no match for “{query}”")
        else:
            status.update(f"{self.index + 1} of {len(self.matches)}")

    def action_step(self, step: int) -> None:
        """The next (``1``) or previous (``-1``) match."""
        if self.matches:
            self._go(self.index + step)

    def action_close(self) -> None:
        """Close the search and clear the highlights."""
        self.view.highlight(None)
        self.dismiss(None)

    @on(Input.Submitted, "#search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        self.action_step(1)
