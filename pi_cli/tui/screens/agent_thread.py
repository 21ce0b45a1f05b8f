"""``/agents`` → a background sub-agent's thread, live: read it, steer it, stop it, come back.

The view draws the child's whole thread (its prompt, answers, tool calls and the first lines of
their results) and follows it while the child runs (redrawn only when it changed: a new turn,
message, tool call or status), then stops polling once it has ended. A line typed in its box
goes to the child as a message for its next turn (``/agents steer``); Ctrl+X stops it
(``/agents abort``); Esc comes back to the conversation. Both go through the ``/agents``
command, as everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Input, Label, Static

from pi_cli.shell import agent_status_line, agent_thread_text
from pi_cli.tui.keymap import bindings
from pi_cli.tui.widgets.key_hints import KeyHints

if TYPE_CHECKING:
    from pi_cli.shell import BackgroundChild

POLL_S = 0.25


class AgentThreadScreen(ModalScreen[str | None]):
    """One background child's thread; ``send`` gets each line typed for it. Dismissed with
    ``"abort"`` to stop it, ``None`` to come back."""

    BINDINGS = bindings("agent_view")

    def __init__(self, child: BackgroundChild, send: Callable[[str], None]) -> None:
        super().__init__(classes="picker")
        self.child = child
        self.send = send
        self._seen: tuple[object, ...] | None = None
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box", classes="shell-output-box"):
            yield Label("", id="picker-title", markup=False)
            with VerticalScroll(id="agent-thread-scroll"):
                yield Static("", id="agent-thread", markup=False)
            yield Input(placeholder=f"A message for {self.child.info.id}", id="agent-steer")
            yield KeyHints(
                [("Enter", "Send it"), ("Ctrl+X", "Stop it"), ("Esc", "Back")],
                id="agent-thread-hints",
            )

    def on_mount(self) -> None:
        self.poll()
        if self._timer is None and self.child.running:
            self._timer = self.set_interval(POLL_S, self.poll, name="agent thread")
        self.query_one("#agent-steer", Input).focus()

    def poll(self) -> None:
        """Draw the thread if it changed; once the child has ended, one last time and stop."""
        info = self.child.info
        messages = self.child.transcript()
        seen = (len(messages), info.status, info.turns, info.last_tool, info.usage.get("output"))
        if seen != self._seen:
            self._seen = seen
            scroll = self.query_one("#agent-thread-scroll", VerticalScroll)
            following = scroll.max_scroll_y == 0 or scroll.scroll_y >= scroll.max_scroll_y
            self.query_one("#picker-title", Label).update(agent_status_line(info))
            body = agent_thread_text(info, messages).split("\n", 2)[-1]  # the title says line 1
            self.query_one("#agent-thread", Static).update(body)
            if following:
                scroll.call_after_refresh(scroll.scroll_end, animate=False)
        if not self.child.running and self._timer is not None:
            self._timer.stop()
            self._timer = None

    @on(Input.Submitted, "#agent-steer")
    def _send(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if text:
            self.send(text)
            event.input.value = ""

    def action_close(self) -> None:
        """Come back to the conversation (the child goes on)."""
        self.dismiss(None)

    def action_stop(self) -> None:
        """Stop the child (through ``/agents abort``)."""
        self.dismiss("abort")
