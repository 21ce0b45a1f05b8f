"""A sub-agent as a nested collapsible panel inside its ``task`` call, with its own live turns.

:class:`SubagentHost` is mixed into the transcript: it opens a :class:`SubagentPanel` in the
task call's tool block when the sub-agent starts, feeds it the sub-agent's messages (turns,
text, thinking, tool calls, made by a bridge of its own) and folds it when it ends.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from textual.containers import Vertical
from textual.widgets import Collapsible, Static

from pi_cli.tui import agent_messages as am
from pi_cli.tui import messages as m

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.widget import AwaitMount, Widget

    from pi_cli.tui.widgets.tool_block import ToolBlock
    from pi_cli.tui.widgets.turn_panel import TurnPanel


class SubagentPanel(Collapsible):
    """One sub-agent: open while it runs (``-live``), folded with a summary title when done."""

    DEFAULT_CSS = """
    SubagentPanel {
        border-top: none;
        border-left: wide $border;
        padding: 0;
        margin: 1 0 0 0;
        background: $background;
        height: auto;
    }
    SubagentPanel.-live { border-left: wide $border-active; }
    SubagentPanel.-error { border-left: wide $tool-error-text; }
    SubagentPanel > CollapsibleTitle { color: $turn-title; padding: 0 1; }
    SubagentPanel > Contents { padding: 0 0 0 1; }
    SubagentPanel .subagent-body { height: auto; }
    """

    def __init__(self, task_id: str, agent: str, description: str, model: str) -> None:
        self.body = Vertical(classes="subagent-body")
        self.label = f"⤷ {agent}" + (f": {description}" if description else "")
        self.model = model
        super().__init__(
            self.body, title=f"{self.label} · running…", collapsed=False, classes="-live"
        )
        self.task_id = task_id
        self.turns: list[TurnPanel] = []
        self.current: TurnPanel | None = None
        self.started = time.monotonic()

    async def _panel(self) -> TurnPanel:
        if self.current is None:
            from pi_cli.tui.widgets.turn_panel import TurnPanel

            self.current = TurnPanel(len(self.turns) + 1, time.monotonic)
            self.turns.append(self.current)
            if self.body.is_attached:
                await self.body.mount(self.current)
        return self.current

    async def handle(self, message: Any) -> None:
        """Draw one message of the sub-agent's run."""
        if isinstance(message, m.AssistantText | m.AssistantThinking):
            message.taken = True  # before any await: later deltas need a new message
            panel = await self._panel()
            if isinstance(message, m.AssistantText):
                await panel.add_text(message.index, message.delta)
            else:
                await panel.add_thinking(message.index, message.delta)
        elif isinstance(message, m.TurnStarted):
            self.current = None
            await self._panel()
        elif isinstance(message, m.TurnEnded):
            if self.current is not None:
                await self.current.finish(
                    message.tools, message.input_tokens, message.output_tokens
                )
            self.current = None
        elif isinstance(message, m.AssistantEnded):
            await self._ended(message)
        elif isinstance(message, m.ToolStarted):
            await (await self._panel()).tool_started(
                message.call_id, message.name, message.args, message.title
            )
        elif isinstance(message, m.ToolProgress):
            if self.current is not None:
                self.current.tool_progress(message.call_id, message.text)
        elif isinstance(message, m.ToolFinished):
            await (await self._panel()).tool_finished(
                message.call_id, message.name, message.text, message.is_error, message.details
            )
        # The prompt (UserMessageShown) is the task call's own argument; run starts and ends
        # are the panel's own opening and closing.

    async def _ended(self, message: m.AssistantEnded) -> None:
        panel = await self._panel()
        await panel.end_segment()
        if message.stop_reason == "error":
            await panel.add_error(f"Error: {message.error or 'the model request failed'}")
        elif message.stop_reason == "aborted":
            await panel.add_error("Aborted.", "aborted")

    async def close(self, summary: str, error: str | None) -> None:
        """The sub-agent ended: its summary in the title, the panel folded."""
        if self.current is not None:
            await self.current.finish([], 0, 0)
            self.current = None
        took = f"{time.monotonic() - self.started:.1f}s"
        state = f"failed: {error}" if error else summary
        self.title = f"{self.label} · {state} · {took}"
        self.remove_class("-live")
        self.set_class(bool(error), "-error")
        if error and self.body.is_attached:
            await self.body.mount(Static(f"Sub-agent failed: {error}", classes="turn-note error"))
        self.collapsed = True


class SubagentPanels:
    """The transcript's sub-agent panels by task id, each nested in its ``task`` tool block."""

    def __init__(self, turns: list[TurnPanel], mount: Callable[[Widget], AwaitMount]) -> None:
        self.turns = turns  # the transcript's own list: read when a sub-agent opens
        self.mount = mount  # the transcript's mount, for a panel with no block to nest in
        self.panels: dict[str, SubagentPanel] = {}

    def _task_block(self, task_id: str) -> ToolBlock | None:
        for turn in reversed(self.turns):
            block = turn.tools.get(task_id)
            if block is not None:
                return block
        return None

    async def opened(self, message: am.SubagentOpened) -> None:
        """A sub-agent started: its panel goes into its task call's block."""
        panel = SubagentPanel(message.task_id, message.agent, message.description, message.model)
        self.panels[message.task_id] = panel
        block = self._task_block(message.task_id)
        if block is not None and block.is_attached:
            await block.mount(panel)
        else:  # no block to nest in (a front end that drew no tool start): at the end
            await self.mount(panel)

    async def message(self, message: am.SubagentMessage) -> None:
        """One of the sub-agent's own events."""
        panel = self.panels.get(message.task_id)
        if panel is not None:
            await panel.handle(message.inner)

    async def closed(self, message: am.SubagentClosed) -> None:
        """The sub-agent ended: fold its panel with the summary."""
        panel = self.panels.pop(message.task_id, None)
        if panel is not None:
            await panel.close(message.summary, message.error)
