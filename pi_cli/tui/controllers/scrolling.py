"""Keyboard scrolling of the transcript while the editor keeps the focus, and the marker that
says new output arrived below a scrolled-up view (End / Ctrl+End or a click jumps back).

Scrolling to the top of a resumed conversation mounts its older turns (see :mod:`resume`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events, on
from textual.widgets import Static

from pi_cli.tui.messages import JumpToBottom

if TYPE_CHECKING:
    from pi_cli.tui.widgets.transcript import Transcript

NEAR_TOP = 2  # rows from the top that count as "at the top" (older turns are mounted)


class NewOutputMarker(Static):
    """``↓ new output below``: shown while the view is scrolled up and output keeps coming."""

    def __init__(self) -> None:
        super().__init__("↓ new output below · End or Ctrl+End to jump there", id="new-output")

    @on(events.Click)
    def _clicked(self) -> None:
        self.post_message(JumpToBottom())


class ScrollControl:
    """Page, edge and marker logic for one transcript."""

    def __init__(self, transcript: Transcript, marker: NewOutputMarker) -> None:
        self.transcript = transcript
        self.marker = marker
        self._away_height: int | None = None  # content height when the view left the bottom
        self.loading = False

    @property
    def at_bottom(self) -> bool:
        """The view shows the newest output."""
        transcript = self.transcript
        return transcript.scroll_y >= transcript.max_scroll_y - 1

    def page(self, direction: int) -> None:
        """Scroll a page up (-1) or down (+1)."""
        if direction < 0:
            self.transcript.scroll_page_up(animate=False)
        else:
            self.transcript.scroll_page_down(animate=False)
        self.update()

    def edge(self, bottom: bool) -> None:
        """To the top (older resumed turns are mounted first) or back to the bottom."""
        if bottom:
            self.transcript.scroll_end(animate=False)  # re-anchors: follows new output again
            self.marker.set_class(False, "-shown")
            self._away_height = None
        else:
            self.transcript.scroll_home(animate=False)
            self.update()

    async def load_when_at_top(self) -> None:
        """Mount older resumed turns while the view is at the top (one batch per call)."""
        transcript = self.transcript
        if self.loading or not transcript.older or transcript.scroll_y > NEAR_TOP:
            return
        self.loading = True
        try:
            transcript.load_earlier()
        finally:
            # After the transcript kept the view in place (its own after-refresh callback):
            # until then the view still looks "at the top" and would load batch after batch.
            transcript.call_after_refresh(self._loaded)

    def _loaded(self) -> None:
        self.loading = False

    def update(self) -> None:
        """Show or hide the marker (called by the app's tick and after each scroll key)."""
        if self.at_bottom:
            self._away_height = None
            self.marker.set_class(False, "-shown")
            return
        height = self.transcript.virtual_size.height
        if self._away_height is None:
            self._away_height = height
        self.marker.set_class(height > self._away_height, "-shown")
