"""A sub-agent as a nested folding panel inside its ``task`` call, with its own live turns.

:class:`SubagentPanels` belongs to the transcript: it opens a :class:`SubagentPanel` in the
task call's tool block when the sub-agent starts, feeds it the sub-agent's messages (turns,
text, thinking, tool calls, made by a bridge of its own) and folds it when it ends.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_cli.tui import agent_messages as am
from pi_cli.tui import messages as m
from pi_cli.tui.document import styles
from pi_cli.tui.document.entries import NoteBlock
from pi_cli.tui.document.panel import Panel

if TYPE_CHECKING:
    from pi_cli.tui.document.rows import Block
    from pi_cli.tui.document.tool import ToolBlock
    from pi_cli.tui.document.turn import TurnBlock


class SubagentPanel(Panel):
    """One sub-agent: open while it runs (``live``), folded with a summary title when done."""

    margin_top = 1

    def __init__(self, task_id: str, agent: str, description: str, model: str) -> None:
        self.label = f"⤷ {agent}" + (f": {description}" if description else "")
        super().__init__(f"{self.label} · running…")
        self.model = model
        self.task_id = task_id
        self.turns: list[TurnBlock] = []
        self.current: TurnBlock | None = None
        self.started = time.monotonic()
        self.live = True
        self.error = False

    def bar_style(self) -> str:
        if self.cursor:
            return styles.CURSOR_BORDER
        if self.error:
            return styles.TOOL_ERROR
        return styles.BORDER_LIVE if self.live else styles.BORDER

    def tick(self, now: float) -> None:
        """The running sub-agent's live turn: its tools spin and count their time (on the
        sub-agent's own clock)."""
        if self.live and self.current is not None:
            self.current.tick(time.monotonic())

    def _panel(self) -> TurnBlock:
        if self.current is None:
            from pi_cli.tui.document.turn import TurnBlock

            self.current = TurnBlock(len(self.turns) + 1, time.monotonic)
            self.turns.append(self.current)
            self.body.append(self.current)
            self.changed()
        return self.current

    def handle(self, message: Any) -> None:
        """Draw one message of the sub-agent's run."""
        if isinstance(message, m.AssistantText | m.AssistantThinking):
            message.taken = True  # later deltas need a new message
            panel = self._panel()
            if isinstance(message, m.AssistantText):
                panel.add_text(message.index, message.delta)
            else:
                panel.add_thinking(message.index, message.delta)
        elif isinstance(message, m.TurnStarted):
            self.current = None
            self._panel()
        elif isinstance(message, m.TurnEnded):
            if self.current is not None:
                self.current.finish(message.tools, message.input_tokens, message.output_tokens)
            self.current = None
        elif isinstance(message, m.AssistantEnded):
            self._ended(message)
        elif isinstance(message, m.ToolStarted):
            self._panel().tool_started(message.call_id, message.name, message.args, message.title)
        elif isinstance(message, m.ToolProgress):
            if self.current is not None:
                self.current.tool_progress(message.call_id, message.text)
        elif isinstance(message, m.ToolFinished):
            self._panel().tool_finished(
                message.call_id, message.name, message.text, message.is_error, message.details
            )
        # The prompt (UserMessageShown) is the task call's own argument; run starts and ends
        # are the panel's own opening and closing.

    def _ended(self, message: m.AssistantEnded) -> None:
        panel = self._panel()
        panel.end_segment()
        if message.stop_reason == "error":
            panel.add_note(f"Error: {message.error or 'the model request failed'}")
        elif message.stop_reason == "aborted":
            panel.add_note("Aborted.", "aborted")

    def close(self, summary: str, error: str | None) -> None:
        """The sub-agent ended: its summary in the title, the panel folded."""
        if self.current is not None:
            self.current.finish([], 0, 0)
            self.current = None
        took = f"{time.monotonic() - self.started:.1f}s"
        state = f"failed: {error}" if error else summary
        self.live = False
        self.error = bool(error)
        if error:
            self.body.append(NoteBlock(f"Sub-agent failed: {error}"))
        self.collapsed = True
        self.set_title(f"{self.label} · {state} · {took}")
        self.changed()


class SubagentPanels:
    """The transcript's sub-agent panels by task id, each nested in its ``task`` tool block."""

    def __init__(self, turns: list[TurnBlock], add: Callable[[Block], None]) -> None:
        self.turns = turns  # the transcript's own list: read when a sub-agent opens
        self.add = add  # the transcript's own, for a panel with no block to nest in
        self.panels: dict[str, SubagentPanel] = {}

    def _task_block(self, task_id: str) -> ToolBlock | None:
        for turn in reversed(self.turns):
            block = turn.tools.get(task_id)
            if block is not None:
                return block
        return None

    def opened(self, message: am.SubagentOpened) -> None:
        """A sub-agent started: its panel goes into its task call's block."""
        panel = SubagentPanel(message.task_id, message.agent, message.description, message.model)
        self.panels[message.task_id] = panel
        block = self._task_block(message.task_id)
        if block is not None:
            block.subagents.append(panel)
            block.changed()
        else:  # no block to nest in (a front end that drew no tool start): at the end
            self.add(panel)

    def message(self, message: am.SubagentMessage) -> None:
        """One of the sub-agent's own events."""
        panel = self.panels.get(message.task_id)
        if panel is not None:
            panel.handle(message.inner)

    def closed(self, message: am.SubagentClosed) -> None:
        """The sub-agent ended: fold its panel with the summary."""
        panel = self.panels.pop(message.task_id, None)
        if panel is not None:
            panel.close(message.summary, message.error)
