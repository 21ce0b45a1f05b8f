"""Signs of life: what the footer's first line says while pi works, animated by the app's tick.

A spinner with the elapsed time of the run, what it waits for (the model's first token, a
running tool, a retry's countdown) and the tokens streamed so far, so two screens a second
apart always differ while something happens.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from pi_cli.tui.document.tool import spinner_frame
from pi_cli.tui.host import TuiHost
from pi_cli.tui.widgets.footer import Item, short_tokens

if TYPE_CHECKING:
    from pi_cli.tui.bridge import Bridge
    from pi_cli.tui.controllers.scrolling import ScrollControl


class ActivityHost(TuiHost, Protocol):
    """The app as the activity tick animates it."""

    @property
    def bridge(self) -> Bridge | None: ...
    @property
    def scroller(self) -> ScrollControl: ...


TICK_S = 0.1


@dataclass
class Retry:
    """A pending automatic retry."""

    text: str
    due: float


class Activity:
    """The run's live state as the footer shows it (the shell owns the real state)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.started: float | None = None
        self.retry: Retry | None = None
        # A turn ended: the footer's token counts are drawn at the next tick, not at every
        # turn (a burst of quick tool turns would repaint the footer at every screen update).
        self.status_stale = False

    def run_started(self) -> None:
        """A run began: the clock starts."""
        self.started = self.clock()
        self.retry = None

    def run_ended(self) -> None:
        """The run is over."""
        self.started = None
        self.retry = None

    def retrying(self, text: str, delay_s: float) -> None:
        """A retry is due in ``delay_s`` (``0``: no retry pending any more)."""
        self.retry = Retry(text, self.clock() + delay_s) if delay_s > 0 else None

    def item(self, state: str, streamed: int, running_tools: list[str]) -> Item | None:
        """The footer's activity field for the shell ``state`` (``None`` when idle)."""
        now = self.clock()
        spin = spinner_frame(now)
        if state == "idle":
            return None
        if state in ("command", "compacting", "preparing"):
            what = {"command": "running a command", "compacting": "compacting the context"}
            return Item(f"{spin} {what.get(state, 'preparing')}…", "$activity-text", 100)
        elapsed = now - (self.started if self.started is not None else now)
        if self.retry is not None:
            left = max(0.0, self.retry.due - now)
            label = self.retry.text.split(" in ", 1)[0]  # "Retrying (1/3)"
            text = f"{spin} {label} in {left:.0f}s · Esc cancels"
            return Item(text, "$warning", 100)
        if running_tools:
            doing = f"running {', '.join(dict.fromkeys(running_tools))}"
        elif streamed:
            doing = f"answering · ↓{short_tokens(streamed)} tokens"
        else:
            doing = "waiting for the model"
        return Item(f"{spin} {doing} · {elapsed:.1f}s · Esc to abort", "$activity-text", 100)

    def tick(self, app: ActivityHost) -> None:
        """Animate ``app``: the live turn, the footer's activity, the new-output marker, and
        mount older resumed turns when the view reached the top."""
        if self.status_stale:
            self.status_stale = False
            app.refresh_status()
        transcript = app.transcript
        transcript.tick(self.clock())
        current = transcript.current
        running = [b.tool_name for b in current.tools.values() if not b.finished] if current else []
        state = app.shell.state if app.shell is not None else "idle"
        streamed = app.bridge.streamed_tokens if app.bridge is not None else 0
        app.footer.set_activity(self.item(state, streamed, running))
        app.scroller.update()
        if transcript.older and not app.scroller.loading:
            app.run_worker(app.scroller.load_when_at_top(), group="history")
