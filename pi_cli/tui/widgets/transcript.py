"""The scrolling transcript: the startup header, then one :class:`TranscriptView` holding the
document (prompts, turns, notices), anchored to the bottom.

The bridge's messages become changes to the document's blocks (:mod:`pi_cli.tui.document`):
plain objects, no widget per turn, so a long session costs Textual one widget to lay out and a
frame costs the rows on screen.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.containers import VerticalScroll
from textual.content import Content
from textual.geometry import Size
from textual.reactive import Reactive

from pi_cli.tui import agent_messages as am
from pi_cli.tui import messages as m
from pi_cli.tui.document.entries import (
    FoldedPromptBlock,
    NoticeBlock,
    SummaryBlock,
    user_block,
)
from pi_cli.tui.document.panel import Panel
from pi_cli.tui.document.subagent import SubagentPanels
from pi_cli.tui.document.tool import ToolBlock
from pi_cli.tui.document.view import TranscriptView

if TYPE_CHECKING:
    from pi_cli.tui.document.rows import Block
    from pi_cli.tui.document.turn import TurnBlock
    from pi_cli.tui.history_view import Group

__all__ = ["Transcript"]

MAX_SHOWN = 32  # collapsed forms of sent prompts waiting for their message


def is_cursor_item(block: Block) -> bool:
    """What the transcript cursor stops on: turns, tool calls, thinking, skills, summaries."""
    from pi_cli.tui.document.custom import CustomMessageBlock
    from pi_cli.tui.document.turn import ThinkingBlock, TurnBlock

    return isinstance(
        block, TurnBlock | ToolBlock | ThinkingBlock | FoldedPromptBlock | SummaryBlock
    ) or (isinstance(block, CustomMessageBlock) and block.expanded_view is not None)


class Transcript(VerticalScroll, can_focus=False):
    """Renders the bridge's messages into the document: turns, user messages, notices.

    The bridge posts to the transcript; a message the app also needs (run and turn ends,
    status, queue) bubbles on to it after the transcript has drawn it. Stays at the bottom
    until scrolled. Never takes the focus: the editor keeps it.
    """

    # Its virtual size (the view's height) grows with every frame of a run: the reflow that
    # sets it has already marked what moved for painting, so no second paint of the whole
    # transcript. The layout it asks for stays: without it, a resize while scrolled up lands
    # elsewhere.
    virtual_size = Reactive(Size(0, 0), layout=True, repaint=False)

    def __init__(self, clock: Callable[[], float]) -> None:
        super().__init__(id="transcript")
        self.clock = clock
        self.view = TranscriptView()
        self.describe: Callable[[str, Any], str] = lambda name, args: ""
        self.turns: list[TurnBlock] = []
        self.turn_count = 0  # turns drawn so far, resumed ones included (numbers go on)
        self.current: TurnBlock | None = None
        self.tools_expanded = False
        self.thinking_hidden = False
        self.older: list[tuple[Group, int]] = []  # resumed groups not drawn yet, with numbers
        self.earlier_note: NoticeBlock | None = None
        self.history_first: Block | None = None
        self.subagents = SubagentPanels(self.turns, self.view.add_entry)
        self._shown: dict[str, str] = {}  # sent text -> how it is shown (pastes collapsed)

    def on_mount(self) -> None:
        self.anchor()

    def on_subagent_opened(self, message: am.SubagentOpened) -> None:
        self.subagents.opened(message)

    def on_subagent_message(self, message: am.SubagentMessage) -> None:
        self.subagents.message(message)

    def on_subagent_closed(self, message: am.SubagentClosed) -> None:
        self.subagents.closed(message)

    # ------------------------------------------------------------------ bridge messages

    def on_turn_started(self, message: m.TurnStarted) -> None:
        self.start_turn()

    def on_turn_ended(self, message: m.TurnEnded) -> None:
        self.end_turn(message.tools, message.input_tokens, message.output_tokens)

    def on_run_ended(self, message: m.RunEnded) -> None:
        self.close_open_turn()  # a crashed loop never sent turn_end
        if message.error:
            self.notice(f"Run failed: {message.error}", "error")

    def on_user_message_shown(self, message: m.UserMessageShown) -> None:
        self.user_message(message.text, message.injected)

    def on_assistant_text(self, message: m.AssistantText) -> None:
        message.taken = True  # later deltas need a new message
        self.text(message.index, message.delta)

    def on_assistant_thinking(self, message: m.AssistantThinking) -> None:
        message.taken = True
        self.thinking(message.index, message.delta)

    def on_assistant_ended(self, message: m.AssistantEnded) -> None:
        self.assistant_ended(message.stop_reason, message.error)

    def on_tool_started(self, message: m.ToolStarted) -> None:
        self.tool_started(message.call_id, message.name, message.args, message.title)

    def on_tool_progress(self, message: m.ToolProgress) -> None:
        self.tool_progress(message.call_id, message.text)

    def on_tool_finished(self, message: m.ToolFinished) -> None:
        self.tool_finished(
            message.call_id, message.name, message.text, message.is_error, message.details
        )

    def on_notice_shown(self, message: m.NoticeShown) -> None:
        self.notice(message.text, message.level)

    def on_custom_message_drawn(self, message: m.CustomMessageDrawn) -> None:
        from pi_cli.tui.document.custom import CustomMessageBlock

        block = CustomMessageBlock(message.view, message.custom_type, message.expanded)
        self.view.add_entry(block)

    def on_retry_shown(self, message: m.RetryShown) -> None:
        self._panel().add_note(message.text, message.level)

    def on_compaction_shown(self, message: m.CompactionShown) -> None:
        self.view.add_entry(SummaryBlock(message.summary, message.title))

    # ------------------------------------------------------------------ drawing

    def start_turn(self) -> TurnBlock:
        """Open a new turn panel (numbers continue after a resumed conversation)."""
        from pi_cli.tui.document.turn import TurnBlock

        self.turn_count += 1
        panel = TurnBlock(self.turn_count, self.clock)
        self.turns.append(panel)
        self.current = panel
        self.view.frames.turn_started()  # turns faster than frames: fewer frames (frames.py)
        self.view.add_entry(panel)
        return panel

    def _panel(self) -> TurnBlock:
        return self.current if self.current is not None else self.start_turn()

    def remember_shown(self, text: str, shown: str) -> None:
        """When the message ``text`` arrives, show it as ``shown`` (its pastes collapsed)."""
        if len(self._shown) >= MAX_SHOWN:  # sent but never delivered (a command, a drop)
            self._shown.pop(next(iter(self._shown)))
        self._shown[text] = shown

    def user_message(self, text: str, injected: bool) -> None:
        """Show a user message where the model received it: before the turn it starts."""
        panel = self.current
        before = panel if panel is not None and panel.has_no_output else None
        shown = self._shown.pop(text, None)
        self.view.add_entry(user_block(text, injected, shown), before=before)

    def text(self, index: int, delta: str) -> None:
        """Assistant text delta."""
        self._panel().add_text(index, delta)

    def thinking(self, index: int, delta: str) -> None:
        """Assistant thinking delta."""
        self._panel().add_thinking(index, delta, hidden=self.thinking_hidden)

    def assistant_ended(self, stop_reason: str, error: str | None) -> None:
        """Close the stream; show an error or abort note.

        An abort between two turns (Esc while a tool batch runs) makes the loop open one more
        turn that only says "aborted": the note goes to the turn it stopped instead.
        """
        panel = self._panel()
        panel.end_segment()
        if stop_reason == "error":
            panel.add_note(f"Error: {error or 'the model request failed'}")
        elif stop_reason == "aborted":
            if panel.has_no_output and len(self.turns) > 1 and panel is self.turns[-1]:
                self.turns.pop()
                self.turn_count -= 1
                self.current = None
                self.view.remove_entry(panel)
                panel = self.turns[-1]
            panel.add_note("Aborted.", "aborted")
        elif stop_reason == "refusal":
            why = f": {error}" if error else ""
            panel.add_note(f"The model refused to answer{why}", "aborted")
        elif stop_reason == "length":
            panel.add_note(
                "Cut at the model's output token limit: the answer is incomplete.", "aborted"
            )

    def tool_started(self, call_id: str, name: str, args: Any, title: str = "") -> None:
        """A tool call began."""
        block = self._panel().tool_started(call_id, name, args, title)
        if self.tools_expanded:
            block.set_expanded(True)

    def tool_progress(self, call_id: str, text: str) -> None:
        """A tool streamed output (dropped after its turn ended: no panel is opened for it)."""
        if self.current is not None:
            self.current.tool_progress(call_id, text)

    def tool_finished(
        self, call_id: str, name: str, text: str, is_error: bool, details: Any
    ) -> None:
        """A tool call finished."""
        self._panel().tool_finished(call_id, name, text, is_error, details)

    def end_turn(self, tools: list[str], input_tokens: int, output_tokens: int) -> None:
        """Close the current turn panel."""
        if self.current is not None:
            self.current.finish(tools, input_tokens, output_tokens)
        self.current = None

    def close_open_turn(self) -> None:
        """Close a panel the run left open (its loop crashed before ``turn_end``)."""
        if self.current is not None:
            self.end_turn([block.tool_name for block in self.current.tools.values()], 0, 0)

    def notice(self, text: str | Content, level: str = "info") -> None:
        """Show a notice line."""
        self.view.add_entry(NoticeBlock(text, level))

    def tick(self, now: float) -> None:
        """Animate the live turn (spinner, elapsed time); a change waiting for its frame is
        drawn now, in the same screen update as the tick's (frames.py)."""
        if self.current is not None:
            self.current.tick(now)
        self.view.frames.draw_pending()

    def cursor_items(self) -> list[Block]:
        """What the transcript cursor can stop on, top to bottom (not inside folded panels)."""
        items: list[Block] = []

        def visit(block: Block) -> None:
            if is_cursor_item(block):
                items.append(block)
            if not (isinstance(block, Panel) and block.collapsed):
                for child in block.children():
                    visit(child)

        for entry in self.view.entries:
            visit(entry)
        return items

    def tool_blocks(self, scope: Block | None = None) -> list[ToolBlock]:
        """Every tool block (of ``scope``, else of the whole transcript)."""
        blocks = scope.walk() if scope is not None else self.view.blocks()
        return [block for block in blocks if isinstance(block, ToolBlock)]

    def set_tools_expanded(self, expanded: bool) -> None:
        """Expand every tool block (and the ones to come), or put them back at rest."""
        self.tools_expanded = expanded
        for block in self.tool_blocks():
            block.set_expanded(expanded)

    def toggle_thinking(self) -> None:
        """Hide every thinking block's text (the titles stay), or show them again."""
        from pi_cli.tui.document.turn import ThinkingBlock

        self.thinking_hidden = not self.thinking_hidden
        for block in self.view.blocks():
            if isinstance(block, ThinkingBlock):
                block.set_hidden(self.thinking_hidden)

    def reset(self) -> None:
        """Remove everything but the startup header."""
        self.view.clear_entries()
        self.turns.clear()
        self.current, self.turn_count = None, 0
        self.older, self.earlier_note, self.history_first = [], None, None

    # ------------------------------------------------------------------ resumed conversations

    def history(self, messages: list[Any], note: str | None = None) -> None:
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
        blocks = self._build(shown, markdown_from=len(shown) - _markdown_turns())
        self.history_first = blocks[0]
        if self.older:
            self.earlier_note = NoticeBlock(self._earlier_text(), "info")
            blocks.insert(0, self.earlier_note)
        if note:
            blocks.append(NoticeBlock(note))
        self.view.add_entries(blocks)

    def _build(self, numbered: list[tuple[Group, int]], markdown_from: int) -> list[Block]:
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

    def load_earlier(self) -> bool:
        """Draw the next batch of older resumed groups above the ones shown (False: none left)."""
        from pi_cli.tui.history_view import BATCH_GROUPS

        if not self.older or self.history_first is None:
            return False
        batch, self.older = self.older[-BATCH_GROUPS:], self.older[:-BATCH_GROUPS]
        blocks = self._build(batch, markdown_from=len(batch))
        before = self.virtual_size.height
        self.view.add_entries(blocks, before=self.history_first)
        self.history_first = blocks[0]
        if self.earlier_note is not None:
            if self.older:
                self.earlier_note.update(self._earlier_text())
            else:
                self.view.remove_entry(self.earlier_note)
                self.earlier_note = None
        self.call_after_refresh(self._keep_view, before)
        return True

    def _keep_view(self, height_before: int) -> None:
        """After drawing above the view, scroll by what was added: the view stays put."""
        grown = self.virtual_size.height - height_before
        if grown > 0:
            self.scroll_to(y=self.scroll_y + grown, animate=False, immediate=True)


def _markdown_turns() -> int:
    from pi_cli.tui.history_view import MARKDOWN_TURNS

    return MARKDOWN_TURNS
