"""``/bashes`` → View: a background shell's output, live.

The view follows the output as the shell writes it (the tail, kept scrolled to the end unless
you scrolled up), says when the shell has exited and then stops polling. It reads the shell's
output buffer without moving the model's cursor (``bash_output`` still returns what is new).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Label, Static

from pi_cli.shell import shell_line, shell_output
from pi_cli.tui.keymap import bindings
from pi_cli.tui.widgets.key_hints import KeyHints

if TYPE_CHECKING:
    from pi_cli.shell import BackgroundShellView

POLL_S = 0.25


class ShellOutputScreen(ModalScreen[str | None]):
    """The live output of one background shell; dismissed with ``"kill"`` to stop it."""

    BINDINGS = bindings("shell_view")

    def __init__(self, shell: BackgroundShellView) -> None:
        super().__init__(classes="picker")
        self.shell = shell
        self._seen: tuple[int, str] | None = None  # (bytes, state) last drawn
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box", classes="shell-output-box"):
            yield Label("", id="picker-title", markup=False)
            with VerticalScroll(id="shell-output-scroll"):
                yield Static("", id="shell-output", markup=False)
            yield KeyHints([("Esc", "Close"), ("x", "Stop it")], id="shell-output-hints")

    def on_mount(self) -> None:
        self.poll()
        if self._timer is None and not self._ended(self.shell.info().state):
            self._timer = self.set_interval(POLL_S, self.poll, name="shell output")

    def _ended(self, state: str) -> bool:
        """Exited and its output all read (the pipe may still hold the last lines at exit)."""
        return state != "running" and self.shell.eof.is_set()

    def poll(self) -> None:
        """Draw what is new; once the shell has ended and its output is all read, draw it one
        last time and stop (stopping at the exit itself lost the lines still in the pipe)."""
        info = self.shell.info()
        ended = self._ended(info.state)
        if info.state != "running" and not ended:
            return  # exited with output still in the pipe: say so with its last lines, not before
        seen = (self.shell.buffer.total_bytes, info.state)
        if seen != self._seen:
            self._seen = seen
            scroll = self.query_one("#shell-output-scroll", VerticalScroll)
            following = scroll.max_scroll_y == 0 or scroll.scroll_y >= scroll.max_scroll_y
            self.query_one("#picker-title", Label).update(shell_line(info))
            self.query_one("#shell-output", Static).update(shell_output(self.shell))
            if following:  # tail-follow, unless the reader scrolled up
                scroll.call_after_refresh(scroll.scroll_end, animate=False)
        if ended and self._timer is not None:
            self._timer.stop()
            self._timer = None

    def action_close(self) -> None:
        """Close the view (the shell goes on)."""
        self.dismiss(None)

    def action_stop(self) -> None:
        """Stop the shell (through ``/bashes kill``, as everywhere)."""
        self.dismiss("kill")
