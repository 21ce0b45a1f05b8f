"""Bounded live rendering: long thinking, huge tool output, late tool updates."""

from __future__ import annotations

from pathlib import Path

from pi_cli.tui import messages as m
from pi_cli.tui.widgets.turn_panel import LIVE_THINKING_CHARS, ThinkingBlock
from tests.agent_core.scripted_stream import ScriptedStream
from tests.tui.helpers import SIZE, make_app, make_shell


def _body_text(block: ThinkingBlock) -> str:
    return str(block.body.render())


async def test_a_streaming_thinking_block_draws_a_bounded_tail_then_everything(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(m.TurnStarted())
        lines = [f"thought {i}\n" for i in range(2000)]
        for line in lines:
            app.post_message(m.AssistantThinking(0, line))
        await pilot.pause()
        block = app.query_one(ThinkingBlock)
        live = _body_text(block)
        assert len(live) <= LIVE_THINKING_CHARS + 1 and live.startswith("…thought ")
        assert live.rstrip().endswith("thought 1999")
        app.post_message(m.AssistantEnded("stop"))
        await pilot.pause()
        assert _body_text(block) == "".join(lines) == block.text
