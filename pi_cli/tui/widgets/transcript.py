"""The scrolling transcript: user messages, turn panels and notices, anchored to the bottom."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import Widget

from pi_cli.tui import agent_messages as am
from pi_cli.tui import messages as m
from pi_cli.tui.widgets.entries import Notice, SummaryView, user_view
from pi_cli.tui.widgets.subagent_panel import SubagentPanels

if TYPE_CHECKING:
    # Turn panels pull in Markdown (markdown-it, pygments): imported with the first turn,
    # not before the first frame.
    from pi_cli.tui.history_view import Group
    from pi_cli.tui.widgets.turn_panel import TurnPanel

CURSOR_ITEMS = "TurnPanel, ToolBlock, ThinkingBlock, SkillMessageView, SummaryView"
__all__ = ["Notice", "Transcript"]


class Transcript(VerticalScroll, can_focus=False):
    """Renders the bridge's messages: turn panels, user messages, notices.

    The bridge posts to the transcript; a message the app also needs (run and turn ends,
    status, queue) bubbles on to it after the transcript has drawn it. Stays at the bottom
    until scrolled. Never takes the focus: the editor keeps it.
    """

    def __init__(self, clock: Callable[[], float]) -> None:
        super().__init__(id="transcript")
        self.clock = clock
        self.describe: Callable[[str, Any], str] = lambda name, args: ""
        self.turns: list[TurnPanel] = []
        self.turn_count = 0  # turns drawn so far, resumed ones included (numbers go on)
        self.current: TurnPanel | None = None
        self.tools_expanded = False
        self.older: list[tuple[Group, int]] = []  # resumed groups not mounted yet, with numbers
        self.earlier_note: Notice | None = None
        self.history_first: Widget | None = None
        self.subagents = SubagentPanels(self.turns, self.mount)

    def on_mount(self) -> None:
        self.anchor()

    async def on_subagent_opened(self, message: am.SubagentOpened) -> None:
        await self.subagents.opened(message)

    async def on_subagent_message(self, message: am.SubagentMessage) -> None:
        await self.subagents.message(message)

    async def on_subagent_closed(self, message: am.SubagentClosed) -> None:
        await self.subagents.closed(message)

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

    async def on_retry_shown(self, message: m.RetryShown) -> None:
        await (await self._panel()).add_note(message.text, message.level)

    async def on_compaction_shown(self, message: m.CompactionShown) -> None:
        await self.mount(SummaryView(message.summary, message.title))

    # ------------------------------------------------------------------ drawing

    async def start_turn(self) -> TurnPanel:
        """Open a new turn panel (numbers continue after a resumed conversation)."""
        from pi_cli.tui.widgets.turn_panel import TurnPanel

        self.turn_count += 1
        panel = TurnPanel(self.turn_count, self.clock)
        self.turns.append(panel)
        self.current = panel
        await self.mount(panel)
        return panel

    async def _panel(self) -> TurnPanel:
        return self.current if self.current is not None else await self.start_turn()

    async def user_message(self, text: str, injected: bool) -> None:
        """Show a user message where the model received it: before the turn it starts."""
        panel = self.current
        before = panel if panel is not None and panel.has_no_output else None
        await self.mount(user_view(text, injected), before=before)

    async def text(self, index: int, delta: str) -> None:
        """Assistant text delta."""
        await (await self._panel()).add_text(index, delta)

    async def thinking(self, index: int, delta: str) -> None:
        """Assistant thinking delta."""
        await (await self._panel()).add_thinking(index, delta)

    async def assistant_ended(self, stop_reason: str, error: str | None) -> None:
        """Flush the stream; show an error or abort note.

        An abort between two turns (Esc while a tool batch runs) makes the loop open one more
        turn that only says "aborted": the note goes to the turn it stopped instead.
        """
        panel = await self._panel()
        await panel.end_segment()
        if stop_reason == "error":
            await panel.add_error(f"Error: {error or 'the model request failed'}")
        elif stop_reason == "aborted":
            if panel.has_no_output and len(self.turns) > 1 and panel is self.turns[-1]:
                self.turns.pop()
                self.turn_count -= 1
                self.current = None
                await panel.remove()
                panel = self.turns[-1]
            await panel.add_error("Aborted.", "aborted")
        elif stop_reason == "refusal":
            why = f": {error}" if error else ""
            await panel.add_error(f"The model refused to answer{why}", "aborted")
        elif stop_reason == "length":
            note = "Cut at the model's output token limit: the answer is incomplete."
            await panel.add_error(note, "aborted")

    async def tool_started(self, call_id: str, name: str, args: Any, title: str = "") -> None:
        """A tool call began."""
        block = await (await self._panel()).tool_started(call_id, name, args, title)
        if self.tools_expanded:
            block.set_expanded(True)

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

    async def notice(self, text: str | Content, level: str = "info") -> None:
        """Show a notice line."""
        await self.mount(Notice(text, level))

    def tick(self, now: float) -> None:
        """Animate the live turn (spinner, elapsed time)."""
        if self.current is not None:
            self.current.tick(now)

    def cursor_items(self) -> list[Widget]:
        """What the transcript cursor can stop on, top to bottom."""
        return list(self.query(CURSOR_ITEMS))

    def set_tools_expanded(self, expanded: bool) -> None:
        """Expand every tool block (and the ones to come), or put them back at rest."""
        from pi_cli.tui.widgets.tool_block import ToolBlock

        self.tools_expanded = expanded
        for block in self.query(ToolBlock):
            block.set_expanded(expanded)

    async def reset(self) -> None:
        """Remove everything but the startup header."""
        await self.query("Transcript > *").exclude("#startup-header").remove()
        self.turns, self.current, self.turn_count = [], None, 0
        self.older, self.earlier_note, self.history_first = [], None, None

    # ------------------------------------------------------------------ resumed conversations

    async def history(self, messages: list[Any], note: str | None = None) -> None:
        """Draw a resumed conversation as it was live: its last groups now, older ones on scroll."""
        from pi_cli.tui.history_view import FIRST_GROUPS, group_messages

        groups = group_messages(messages)
        if not groups:
            return
        numbered: list[tuple[Group, int]] = []
        for group in groups:
            if group.kind == "turn":
                self.turn_count += 1
            numbered.append((group, self.turn_count))
        self.older, shown = numbered[:-FIRST_GROUPS], numbered[-FIRST_GROUPS:]
        widgets = self._build(shown, markdown_from=len(shown) - _markdown_turns())
        if self.older:
            self.earlier_note = Notice(self._earlier_text(), "info")
            widgets.insert(0, self.earlier_note)
        self.history_first = widgets[1] if self.older else widgets[0]
        if note:
            widgets.append(Notice(note))
        await self.mount_all(widgets)

    def _build(self, numbered: list[tuple[Group, int]], markdown_from: int) -> list[Widget]:
        from pi_cli.tui.history_view import build_group

        return [
            build_group(group, number, self.clock, self.describe, index >= markdown_from)
            for index, (group, number) in enumerate(numbered)
        ]

    def _earlier_text(self) -> str:
        turns = sum(1 for group, _ in self.older if group.kind == "turn")
        return (
            f"… {len(self.older)} earlier messages ({turns} turns): scroll up or Ctrl+Home to show"
        )

    async def load_earlier(self) -> bool:
        """Mount the next batch of older resumed groups above the ones shown (False: none left)."""
        from pi_cli.tui.history_view import BATCH_GROUPS

        if not self.older or self.history_first is None:
            return False
        batch, self.older = self.older[-BATCH_GROUPS:], self.older[:-BATCH_GROUPS]
        widgets = self._build(batch, markdown_from=len(batch))
        before = self.virtual_size.height
        await self.mount_all(widgets, before=self.history_first)
        self.history_first = widgets[0]
        if self.earlier_note is not None:
            if self.older:
                self.earlier_note.update(self._earlier_text())
            else:
                await self.earlier_note.remove()
                self.earlier_note = None
        self.call_after_refresh(self._keep_view, before)
        return True

    def _keep_view(self, height_before: int) -> None:
        """After mounting above the view, scroll by what was added: the view stays put."""
        grown = self.virtual_size.height - height_before
        if grown > 0:
            self.scroll_to(y=self.scroll_y + grown, animate=False, immediate=True)


def _markdown_turns() -> int:
    from pi_cli.tui.history_view import MARKDOWN_TURNS

    return MARKDOWN_TURNS
