"""Bounded live rendering: long thinking, huge tool output, late tool updates."""

from __future__ import annotations

import re
from pathlib import Path

from pi_cli.tui import messages as m
from pi_cli.tui.document.turn import LIVE_THINKING_CHARS, ThinkingBlock
from tests.agent_core.scripted_stream import ScriptedStream
from tests.tui.helpers import SIZE, blocks_of, make_app, make_shell
from tests.tui.screen_text import screen_text


def _body_text(block: ThinkingBlock) -> str:
    return block.shown


async def test_a_streaming_thinking_block_draws_a_bounded_tail_then_everything(
    tmp_path: Path,
) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        app.transcript.post_message(m.TurnStarted())
        lines = [f"thought {i}\n" for i in range(2000)]
        for line in lines:
            app.transcript.post_message(m.AssistantThinking(0, line))
        await pilot.pause()
        (block,) = blocks_of(app, ThinkingBlock)
        live = _body_text(block)
        assert len(live) <= LIVE_THINKING_CHARS + 1 and live.startswith("…thought ")
        assert live.rstrip().endswith("thought 1999")
        app.transcript.post_message(m.AssistantEnded("stop"))
        await pilot.pause()
        assert _body_text(block) == "".join(lines) == block.text


async def test_tool_progress_after_its_turn_ended_opens_no_panel(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        app.transcript.post_message(m.TurnStarted())
        app.transcript.post_message(m.ToolStarted("c1", "bash", {"command": "ls"}))
        app.transcript.post_message(m.TurnEnded(["bash"], 1, 1))
        app.transcript.post_message(m.ToolProgress("c1", "late output"))
        await pilot.pause()
        assert len(app.transcript.turns) == 1 and app.transcript.current is None


def test_long_or_multi_line_bash_commands_get_a_one_line_title(tmp_path: Path) -> None:
    from pi_cli.tui.document.tool import MAX_TITLE_CHARS, ToolBlock
    from tools import create_bash_tool, create_read_tool

    bash, read = create_bash_tool(tmp_path), create_read_tool(tmp_path)

    def shown(tool_args: dict[str, str], tool: object = bash) -> str:  # the block's title line
        return ToolBlock("c1", "bash", tool_args, tool.title(tool_args)).title  # type: ignore[attr-defined]

    assert shown({"command": "echo hi\nrm -rf build"}) == "$ echo hi…"
    assert len(shown({"command": "y" * 5000})) == MAX_TITLE_CHARS
    assert shown({"path": "a.py"}, read) == "a.py"


async def test_a_huge_tool_result_is_clipped_on_screen(tmp_path: Path) -> None:
    from pi_cli.tui.document.tool import LINE_CHARS, ToolBlock

    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        app.transcript.post_message(m.TurnStarted())
        app.transcript.post_message(m.ToolStarted("c1", "read", {"path": "min.js"}))
        app.transcript.post_message(m.ToolProgress("c1", "p" * 1_000_000))
        await pilot.pause()
        (block,) = blocks_of(app, ToolBlock)
        assert len(block.output_text) < LINE_CHARS + 100
        assert screen_text(app).count("p" * 90) <= LINE_CHARS // 90 + 1  # a few rows, not 11,000
        app.transcript.post_message(m.ToolFinished("c1", "read", "r" * 1_000_000))
        await pilot.pause()
        assert len(block.output_text) < LINE_CHARS + 100
        block.set_expanded(True)  # expanded, a single line is still cut
        await pilot.pause()
        assert len(block.output_text) < LINE_CHARS + 100


def test_an_expanded_long_result_says_where_its_earliest_lines_are() -> None:
    from pi_cli.tui.document.tool import ToolBlock

    text = "\n".join(f"line {i}" for i in range(1001, 3001))
    text += "\n\n[Showing lines 1001-3000 of 3000. Full output: /tmp/pi-session-x/bash_1.log]"
    block = ToolBlock("c1", "bash", {"command": "seq 1 3000"}, "$ seq 1 3000")
    block.finish(text, False, {"full_output_path": "/tmp/pi-session-x/bash_1.log"})
    assert "earliest lines" not in block.output_text  # the preview: its tail
    block.set_expanded(True)
    first = block.output_text.splitlines()[0]
    assert first == "The earliest lines are in /tmp/pi-session-x/bash_1.log"
    block.set_expanded(False)
    assert "earliest lines" not in block.output_text


def test_an_expanded_result_shows_all_the_model_read_and_says_where_the_rest_is() -> None:
    """A 2,002-line result (the tools' 2000 and their notes) is drawn whole when expanded; a
    result beyond what is drawn says where all of it is."""
    from pi_cli.tui.document.tool import EXPANDED_LINES, ToolBlock

    text = "\n".join(f"line {i}" for i in range(1, 2003))
    block = ToolBlock("c1", "bash", {"command": "seq 1 2002"}, "$ seq 1 2002")
    block.finish(text, False, None)
    block.set_expanded(True)
    assert block.output_text.splitlines()[0] == "line 1"  # nothing earlier hidden
    huge = "\n".join(f"row {i}" for i in range(EXPANDED_LINES + 5))
    block = ToolBlock("c2", "mcp", {}, "query")
    block.finish(huge, False, None)
    block.set_expanded(True)
    first = block.output_text.splitlines()[0]
    assert first == "… (5 earlier lines not drawn; the whole result in the session file)", first


async def test_an_expanded_long_result_is_drawn_from_its_first_line(tmp_path: Path) -> None:
    """On screen: Ctrl+O on a 2,002-line result shows its first line, with no '… earlier
    lines' left to wonder about."""
    from pi_cli.tui.document.tool import ToolBlock

    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    text = "\n".join(f"output row {i}" for i in range(1, 2003))
    async with app.run_test(size=SIZE) as pilot:
        app.transcript.post_message(m.TurnStarted())
        app.transcript.post_message(m.ToolStarted("c1", "bash", {"command": "seq"}, "$ seq"))
        app.transcript.post_message(m.ToolFinished("c1", "bash", text, False, None))
        await pilot.pause()
        assert "earlier lines, Ctrl+O to expand" in screen_text(app)
        await pilot.press("ctrl+o")
        await pilot.pause()
        (block,) = blocks_of(app, ToolBlock)
        app.transcript.view.scroll_to_block(block)
        await pilot.pause()
        shown = screen_text(app)
        assert "$ seq" in shown and re.search(r"output row 1(?!\d)", shown), shown
        assert "earlier line" not in shown
