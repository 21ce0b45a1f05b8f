"""The scrolling transcript: user messages, turn panels and notices, anchored to the bottom."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.containers import VerticalScroll
from textual.widget import Widget
from textual.widgets import Static

from pi_cli.tui import messages as m
from pi_cli.tui.messages import clean
from pi_cli.tui.widgets.subagent_panel import SubagentHost

HISTORY_SHOWN = 40  # messages of a resumed conversation drawn; older ones are only counted
HISTORY_MARKDOWN = 6  # the last answers drawn as Markdown, older ones as plain text

if TYPE_CHECKING:
    # Turn panels pull in Markdown (markdown-it, pygments): imported with the first turn,
    # not before the first frame.
    from pi_cli.tui.widgets.turn_panel import TurnPanel


class UserMessageView(Static):
    """A message the model received from the user (``-injected`` for delivered queue items)."""

    def __init__(self, text: str, injected: bool = False, kind: str = "") -> None:
        prefix = f"› {kind}: " if kind else "› "
        super().__init__(
            prefix + text, classes="user-message" + (" -injected" if injected else ""), markup=False
        )
        self.text = text


class Notice(Static):
    """A line from the shell (command output, warnings, errors)."""

    def __init__(self, text: str, level: str = "info") -> None:
        super().__init__(text, classes=f"notice -{level}", markup=False)


class Transcript(SubagentHost, VerticalScroll):
    """Renders the bridge's messages: turn panels, user messages, notices.

    The bridge posts to the transcript; a message the app also needs (run and turn ends,
    status, queue) bubbles on to it after the transcript has drawn it. Stays at the bottom
    until scrolled.
    """

    def __init__(self, clock: Callable[[], float]) -> None:
        super().__init__(id="transcript")
        self.clock = clock
        self.turns: list[TurnPanel] = []
        self.current: TurnPanel | None = None

    def on_mount(self) -> None:
        self.anchor()

    # ------------------------------------------------------------------ bridge messages

    async def on_turn_started(self, message: m.TurnStarted) -> None:
        await self.start_turn()

    async def on_turn_ended(self, message: m.TurnEnded) -> None:
        await self.end_turn(message.tools, message.input_tokens, message.output_tokens)

    async def on_run_ended(self, message: m.RunEnded) -> None:
        await self.close_open_turn()  # a crashed loop never sent turn_end
        if message.error:
            await self.notice(f"Run failed: {message.error}", "error")

    async def on_user_message_shown(self, message: m.UserMessageShown) -> None:
        await self.user_message(message.text, message.injected)

    async def on_assistant_text(self, message: m.AssistantText) -> None:
        message.taken = True  # before any await: later deltas need a new message
        await self.text(message.index, message.delta)

    async def on_assistant_thinking(self, message: m.AssistantThinking) -> None:
        message.taken = True
        await self.thinking(message.index, message.delta)

    async def on_assistant_ended(self, message: m.AssistantEnded) -> None:
        await self.assistant_ended(message.stop_reason, message.error)

    async def on_tool_started(self, message: m.ToolStarted) -> None:
        await self.tool_started(message.call_id, message.name, message.args, message.title)

    async def on_tool_progress(self, message: m.ToolProgress) -> None:
        await self.tool_progress(message.call_id, message.text)

    async def on_tool_finished(self, message: m.ToolFinished) -> None:
        await self.tool_finished(
            message.call_id, message.name, message.text, message.is_error, message.details
        )

    async def on_notice_shown(self, message: m.NoticeShown) -> None:
        await self.notice(message.text, message.level)

    # ------------------------------------------------------------------ drawing

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
        await self.mount(view, before=panel if panel is not None and panel.has_no_output else None)

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
        elif stop_reason == "refusal":
            why = f": {error}" if error else ""
            await panel.add_error(f"The model refused to answer{why}", "aborted")
        elif stop_reason == "length":
            note = "Cut at the model's output token limit: the answer is incomplete."
            await panel.add_error(note, "aborted")

    async def tool_started(self, call_id: str, name: str, args: Any, title: str = "") -> None:
        """A tool call began."""
        await (await self._panel()).tool_started(call_id, name, args, title)

    async def tool_progress(self, call_id: str, text: str) -> None:
        """A tool streamed output (dropped after its turn ended: no panel is opened for it)."""
        if self.current is not None:
            self.current.tool_progress(call_id, text)

    async def tool_finished(
        self, call_id: str, name: str, text: str, is_error: bool, details: Any
    ) -> None:
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
        """Render a resumed conversation compactly: its last user messages and answers.

        Only the last :data:`HISTORY_SHOWN` are drawn (a note counts the rest), built first and
        mounted in one go; answers before the last :data:`HISTORY_MARKDOWN` are plain text,
        because a Markdown widget costs ~25 ms to build (500 of them froze pi for 18 s).
        """
        shown = [msg for msg in messages if _history_text(msg)]
        hidden, shown = max(0, len(shown) - HISTORY_SHOWN), shown[-HISTORY_SHOWN:]
        widgets: list[Widget] = []
        if hidden:
            widgets.append(Notice(f"… {hidden} earlier message{'s' if hidden != 1 else ''}"))
        answers = sum(1 for msg in shown if msg.role == "assistant")
        for msg in shown:
            body = clean(_history_text(msg))
            if msg.role == "user":
                widgets.append(UserMessageView(body))
                continue
            answers -= 1
            if answers < HISTORY_MARKDOWN:
                from textual.widgets import Markdown

                widgets.append(Markdown(body, classes="assistant-text history"))
            else:
                widgets.append(Static(body, classes="assistant-text history", markup=False))
        if widgets:
            await self.mount_all(widgets)


def _history_text(message: Any) -> str:
    """The text worth showing of a stored message ('' for tool results and empty answers)."""
    role = getattr(message, "role", "")
    if role not in ("user", "assistant"):
        return ""
    text = getattr(message, "text", "")
    return text if isinstance(text, str) and text.strip() else ""
