"""Keyboard scrolling with the editor focused, the "new output below" marker, and the transcript
cursor (Ctrl+Up / Ctrl+Down) that Ctrl+O and Alt+O act on."""

from __future__ import annotations

from pathlib import Path

from pi_cli.tui import messages as m
from pi_cli.tui.document.tool import ToolBlock
from pi_cli.tui.document.turn import ThinkingBlock, TurnBlock
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tui.helpers import (
    SIZE,
    GateTool,
    blocks_of,
    make_app,
    make_shell,
    seed_tools,
    type_text,
    wait_until,
)
from tests.tui.screen_text import background_of, screen_text
from tests.tui.test_app_ui import seed_stream


def _long_text(lines: int, start: int = 0) -> str:
    return "".join(f"Paragraph number {i}.\n\n" for i in range(start, start + lines))


async def test_page_keys_scroll_and_the_marker_shows_new_output_below(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        transcript = app.transcript
        transcript.post_message(m.TurnStarted())
        transcript.post_message(m.AssistantText(0, _long_text(80)))
        await pilot.pause()
        await wait_until(pilot, lambda: "Paragraph number 79." in screen_text(app))
        assert app.scroller.at_bottom and not app.marker.has_class("-shown")
        await pilot.press("pageup")
        await pilot.pause()
        after_one = transcript.scroll_y
        assert not app.scroller.at_bottom and "Paragraph number 79." not in screen_text(app)
        await pilot.press("shift+pageup")
        await pilot.pause()
        assert transcript.scroll_y < after_one
        transcript.post_message(m.AssistantText(0, _long_text(10, 80)))  # output keeps coming
        await pilot.pause()
        app.tick()
        await pilot.pause()
        assert app.marker.has_class("-shown") and "new output below" in screen_text(app)
        assert "Paragraph number 89." not in screen_text(app)  # the view was not yanked down
        await pilot.press("pagedown")
        await pilot.pause()
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert app.scroller.at_bottom and not app.marker.has_class("-shown")
        await wait_until(pilot, lambda: "Paragraph number 89." in screen_text(app))
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert transcript.scroll_y == 0
        await pilot.click("#new-output")  # hidden at the top until more output arrives: no-op
        await pilot.press("end")  # the editor is empty: End jumps to the bottom too
        await pilot.pause()
        assert app.scroller.at_bottom


async def test_the_cursor_moves_over_blocks_and_keys_act_on_it(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, seed_stream(), tools=seed_tools()))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled)
        items = app.transcript.cursor_items()
        kinds = [type(item).__name__ for item in items]
        assert kinds == ["TurnBlock", "ToolBlock", "TurnBlock", "ToolBlock", "TurnBlock",
                         "ToolBlock", "TurnBlock", "ThinkingBlock"]  # fmt: skip
        await pilot.press("ctrl+up")  # from nothing: the last block
        assert app.cursor.item is items[-1] and items[-1].cursor
        await pilot.pause()
        cursor_bg = app.theme_variables["cursor-bg"].lower()
        assert background_of(app, "Thinking") == cursor_bg  # drawn: the block is tinted
        await pilot.press("ctrl+o")  # on a thinking block: collapses it
        assert isinstance(items[-1], ThinkingBlock) and items[-1].collapsed
        await pilot.press("ctrl+up")  # up to the last turn's panel
        assert isinstance(app.cursor.item, TurnBlock) and app.cursor.item.number == 4
        await pilot.press("ctrl+up")
        block = app.cursor.item
        assert isinstance(block, ToolBlock) and block.call_id == "c3"
        await pilot.press("ctrl+o")  # only this block expands
        tool_blocks = blocks_of(app, ToolBlock)
        assert block.expanded and [b.expanded for b in tool_blocks] == [False, False, True]
        await pilot.press("alt+o")  # collapses the turn holding the cursor
        assert app.transcript.turns[2].collapsed and not app.transcript.turns[3].collapsed
        await pilot.press("escape")  # first Esc: the cursor goes away
        assert app.cursor.item is None and not block.cursor
        await pilot.press("alt+o")  # no cursor: the last turn
        assert app.transcript.turns[3].collapsed
        await pilot.press("ctrl+down")  # from nothing: the first block
        assert app.cursor.item is items[0]
        await type_text(pilot, "still typing")
        assert app.editor.text == "still typing" and app.focused is app.editor


async def test_esc_clears_the_cursor_before_it_aborts(tmp_path: Path) -> None:
    gate = GateTool()
    stream = ScriptedStream(reply(text("Working."), tool_call("c1", "bash", {"command": "x"})))
    app = make_app(make_shell(tmp_path, stream, tools=[gate]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await gate.started.wait()
        await pilot.press("ctrl+up")
        assert app.cursor.item is not None
        await pilot.press("escape")
        await pilot.pause()
        assert app.cursor.item is None and app.is_live
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.is_settled)
        assert "Aborted." in screen_text(app)
        # The abort between two turns draws no empty extra panel: "Aborted." joins turn 1.
        assert len(blocks_of(app, TurnBlock)) == 1
