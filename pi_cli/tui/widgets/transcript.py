"""The scrolling transcript: user messages, turn panels and notices, anchored to the bottom."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

if TYPE_CHECKING:
    # Turn panels pull in Markdown (markdown-it, pygments): imported with the first turn,
    # not before the first frame.
    from pi_cli.tui.widgets.turn_panel import TurnPanel


class UserMessageView(Static):
    """A message the model received from the user (``-injected`` for delivered queue items)."""

    def __init__(self, text: str, injected: bool = False, kind: str = "") -> None:
        prefix = f"› {kind}: " if kind else "› "
        super().__init__(prefix + text, classes="user-message" + (" -injected" if injected else ""), markup=False)
        self.text = text


class Notice(Static):
    """A line from the shell (command output, warnings, errors)."""

    def __init__(self, text: str, level: str = "info") -> None:
        super().__init__(text, classes=f"notice -{level}", markup=False)


class Transcript(VerticalScroll):
    """Routes run events to the current :class:`TurnPanel`; stays at the bottom until scrolled."""

    def __init__(self, clock: Callable[[], float]) -> None:
        super().__init__(id="transcript")
        self.clock = clock
        self.turns: list[TurnPanel] = []
        self.current: TurnPanel | None = None

    def on_mount(self) -> None:
        self.anchor()

    async def add(self, widget: Widget, before: Widget | None = None) -> None:
        """Mount a widget at the end (or before ``before``)."""
        await self.mount(widget, before=before)

    async def start_turn(self) -> TurnPanel:
        """Open a new turn panel."""
        from pi_cli.tui.widgets.turn_panel import TurnPanel

        panel = TurnPanel(len(self.turns) + 1, self.clock)
        self.turns.append(panel)
        self.current = panel
        await self.mount(panel)
        return panel

    async def _panel(self) -> TurnPanel:
        return self.current if self.current is not None else await self.start_turn()

    async def user_message(self, text: str, injected: bool, kind: str = "") -> None:
        """Show a user message where the model received it: before the turn it starts."""
        view = UserMessageView(text, injected, kind)
        panel = self.current
        await self.mount(view, before=panel if panel is not None and panel.is_empty else None)

    async def text(self, index: int, delta: str) -> None:
        """Assistant text delta."""
        await (await self._panel()).add_text(index, delta)

    async def thinking(self, index: int, delta: str) -> None:
        """Assistant thinking delta."""
        await (await self._panel()).add_thinking(index, delta)

    async def assistant_ended(self, stop_reason: str, error: str | None) -> None:
        """Flush the stream; show an error or abort note."""
        panel = await self._panel()
        await panel.end_segment()
        if stop_reason == "error":
            await panel.add_error(f"Error: {error or 'the model request failed'}")
        elif stop_reason == "aborted":
            await panel.add_error("Aborted.", "aborted")

    async def tool_started(self, call_id: str, name: str, args: Any) -> None:
        """A tool call began."""
        await (await self._panel()).tool_started(call_id, name, args)

    async def tool_progress(self, call_id: str, text: str) -> None:
        """A tool streamed output."""
        (await self._panel()).tool_progress(call_id, text)

    async def tool_finished(self, call_id: str, name: str, text: str, is_error: bool, details: Any) -> None:
        """A tool call finished."""
        await (await self._panel()).tool_finished(call_id, name, text, is_error, details)

    async def end_turn(self, tools: list[str], input_tokens: int, output_tokens: int) -> None:
        """Close the current turn panel."""
        if self.current is not None:
            await self.current.finish(tools, input_tokens, output_tokens)
        self.current = None

    async def close_open_turn(self) -> None:
        """Close a panel the run left open (its loop crashed before ``turn_end``)."""
        if self.current is not None:
            await self.end_turn([block.tool_name for block in self.current.tools.values()], 0, 0)

    async def notice(self, text: str, level: str = "info") -> None:
        """Show a notice line."""
        await self.mount(Notice(text, level))

    async def reset(self) -> None:
        """Remove everything but the startup header."""
        await self.query("Transcript > *").exclude("#startup-header").remove()
        self.turns, self.current = [], None

    async def history(self, messages: list[Any]) -> None:
        """Render a resumed conversation compactly (user messages and assistant answers)."""
        for message in messages:
            role = getattr(message, "role", "")
            if role == "user":
                await self.mount(UserMessageView(message.text))
            elif role == "assistant" and message.text.strip():
                from textual.widgets import Markdown

                await self.mount(Markdown(message.text, classes="assistant-text history"))
