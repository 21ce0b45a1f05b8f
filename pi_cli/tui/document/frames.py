"""When the transcript is laid out and painted while a run streams (its frames).

Every frame lays the screen out and paints every transcript row in view again (they moved), so
frames are what a fast run costs the TUI, and they run on the agent's own event loop. While a
run streams, changes are drawn at most every :data:`FRAME_S` (25 frames a second: what a
streaming answer needs to read smoothly). When turns finish faster than frames show them (more
than one new turn since the last frame: a burst of quick tool calls, too fast to read), the
next frame waits :data:`BURST_FRAME_S` instead, until turns slow down again; a run at a model's
pace (one turn in many frames) is drawn at 25 frames a second throughout. The app's tick (10 a
second: spinners, elapsed times, the footer's activity) draws a waiting frame with its own
changes (:meth:`FramePacer.draw_pending`), so that in a burst they share one screen update
instead of two; the frame's timer is the fallback when no tick comes.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.timer import Timer
    from textual.widget import Widget

FRAME_S = 0.04  # while a run streams: at most 25 layouts of the transcript a second
BURST_FRAME_S = 0.1  # while turns come faster than frames: 10 a second (the app's tick)
_BURST_FALLBACK_S = BURST_FRAME_S + FRAME_S  # the timer, should the tick not draw it first


class FramePacer:
    """Lays ``view`` out (``refresh(layout=True)``) at once, or at the next frame while a run
    streams (``throttled``)."""

    def __init__(self, view: Widget) -> None:
        self.view = view
        self.throttled = False
        self._timer: Timer | None = None
        self._last = 0.0
        self._interval = FRAME_S
        self._turns = 0  # turns started since the last frame

    def turn_started(self) -> None:
        """A new turn is in the document (counted for the pace of the next frame)."""
        self._turns += 1

    def changed(self) -> None:
        """The document changed: lay it out now, or at the next frame while throttled."""
        if not self.throttled:
            self.view.refresh(layout=True)
        elif self._timer is None:
            wait = self._last + self._interval - time.monotonic()
            if wait <= 0:
                self.frame()
            else:
                self._timer = self.view.set_timer(wait, self.frame, name="transcript frame")

    def frame(self) -> None:
        """Lay the view out now; the next frame comes after the interval this one sets."""
        self._timer = None
        self._last = time.monotonic()
        self._interval = _BURST_FALLBACK_S if self._turns > 1 else FRAME_S
        self._turns = 0
        self.view.refresh(layout=True)

    def draw_pending(self) -> None:
        """A change waiting for its frame (throttled): draw it now."""
        if self._timer is not None:
            self._timer.stop()
            self.frame()

    def set_throttled(self, throttled: bool) -> None:
        """Throttle while a run streams; off, a change waiting for its frame is drawn now."""
        self.throttled = throttled
        self._interval, self._turns = FRAME_S, 0
        if not throttled:
            self.draw_pending()
