"""What is drawn in a long session: 200 turns scroll, fold and unfold like 2; a long streamed
answer (lists, tables, code) is drawn whole and the same as when drawn at once; the number of
widgets does not grow with the turns (the transcript is one widget whatever its length)."""

from __future__ import annotations

from pathlib import Path

from pi_cli.tui import messages as m
from pi_cli.tui.document.markdown import MarkdownBlock
from pi_cli.tui.document.tool import ToolBlock
from pi_cli.tui.document.turn import AnswerBlock, TurnBlock
from pi_cli.tui.document.view import MAX_STRIPS
from tests.agent_core.scripted_stream import ScriptedStream
from tests.tui.helpers import click_block, make_app, make_shell, wait_until
from tests.tui.screen_text import screen_text

SIZE = (100, 30)
FIXTURE = next(
    (
        found
        for parent in Path(__file__).resolve().parents
        if (
            found := parent / "shared" / "fixtures" / "perf" / "long-answer-20000-words.md"
        ).is_file()
    ),
    None,
)
TABLE = """
| Tool | Startup (s) | Notes |
|:-----|------------:|:-----:|
| pi | 0.49 | fast |
| pi-ts | 12.12 | slow |
"""


def post_turns(app: object, first: int, count: int) -> None:
    """``count`` finished turns, each a sentence and a bash call with its output."""
    transcript = app.transcript  # type: ignore[attr-defined]
    for k in range(first, first + count):
        transcript.post_message(m.TurnStarted())
        transcript.post_message(m.AssistantText(0, f"Step {k}: listing."))
        transcript.post_message(m.ToolStarted(f"c{k}", "bash", {"command": f"echo marker-{k}"}))
        transcript.post_message(m.ToolFinished(f"c{k}", "bash", f"marker-{k}\nline two of {k}"))
        transcript.post_message(m.TurnEnded(["bash"], 100 + k, 20))


def widget_count(app: object) -> int:
    return len(list(app.query("*")))  # type: ignore[attr-defined]


async def test_two_hundred_turns_scroll_fold_and_unfold(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        post_turns(app, 1, 10)
        await wait_until(pilot, lambda: len(app.transcript.turns) == 10)
        await pilot.pause()
        widgets_after_10 = widget_count(app)
        post_turns(app, 11, 190)
        await wait_until(pilot, lambda: len(app.transcript.turns) == 200)
        await pilot.pause()
        # One widget for the whole transcript: 190 more turns add no widget.
        assert widget_count(app) == widgets_after_10
        screen = screen_text(app)
        assert "Turn 200 · bash · ↑300 ↓20" in screen and "marker-200" in screen
        await pilot.press("ctrl+home")
        await pilot.pause()
        top = screen_text(app)
        assert "Turn 1 · bash" in top and "Turn 200" not in top
        await pilot.press("pagedown")
        await pilot.pause()
        assert "Turn 1 ·" not in screen_text(app)
        # Fold turn 100 by clicking its title: its body goes, the turns around it stay.
        turn = app.transcript.turns[99]
        await click_block(pilot, turn)
        screen = screen_text(app)
        assert turn.collapsed and "▶ Turn 100 · bash" in screen and "marker-100" not in screen
        assert "Turn 101 · bash" in screen and "marker-101" in screen
        await click_block(pilot, turn)
        assert not turn.collapsed and "marker-100" in screen_text(app)
        # Expand every tool block (Ctrl+O) and back; the end of the session is still drawn.
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert all(b.expanded for b in app.transcript.tool_blocks())
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert "line two of 200" in screen_text(app)
        # The cursor walks the blocks from the end; Alt+O folds the turn it is in.
        await pilot.press("ctrl+up", "ctrl+up", "ctrl+up")  # c200, turn 200, c199
        await pilot.pause()
        assert isinstance(app.cursor.item, ToolBlock) and app.cursor.item.call_id == "c199"
        await pilot.press("alt+o")
        await pilot.pause()
        assert app.transcript.turns[198].collapsed and "▶ Turn 199" in screen_text(app)
        assert len(app.transcript.view._strips) <= MAX_STRIPS


async def test_a_long_streamed_answer_is_drawn_whole_with_its_tables_and_code(
    tmp_path: Path,
) -> None:
    text = (FIXTURE.read_text() if FIXTURE is not None else "") + TABLE + "\nTHE LAST LINE.\n"
    pieces = [text[i : i + 37] for i in range(0, len(text), 37)]
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        app.transcript.post_message(m.TurnStarted())
        for index, piece in enumerate(pieces):
            app.transcript.post_message(m.AssistantText(0, piece))
            if index % 400 == 0:
                await pilot.pause()  # frames while it streams: parsed bit by bit
        app.transcript.post_message(m.AssistantEnded("stop"))
        app.transcript.post_message(m.TurnEnded([], 1, 1))
        await wait_until(pilot, lambda: app.transcript.current is None)
        await pilot.pause()
        screen = screen_text(app)
        assert "THE LAST LINE." in screen
        assert "│ pi-ts │       12.12 │ slow  │" in screen  # the table, aligned, at the end
        (answer,) = [b for b in app.transcript.turns[0].body if isinstance(b, MarkdownBlock)]
        assert answer.source == text
        # Streamed piece by piece, it is drawn exactly as the whole text drawn at once.
        width = app.transcript.view.width - 3
        whole = AnswerBlock(text)
        streamed = [answer.draw(i, width).text for i in range(answer.height(width))]
        assert streamed == [whole.draw(i, width).text for i in range(whole.height(width))]
        if FIXTURE is not None:
            # Code blocks keep their lines and indentation; lists their bullets.
            assert "    for _ in range(n):" in streamed
            assert any(row.startswith("• ") for row in streamed)
            assert not any(row.startswith("```") for row in streamed)
            # Scrolled to a code block in the middle, it is on screen as drawn.
            await pilot.press("ctrl+home")
            await pilot.pause()
            assert "Section 1: Heading Patch Model" in screen_text(app)


async def test_a_turn_finishing_keeps_the_picture(tmp_path: Path) -> None:
    """The live turn is drawn by the same rows as a finished one: ending it changes the title
    and the border colour, nothing else moves."""
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        app.transcript.post_message(m.TurnStarted())
        app.transcript.post_message(m.AssistantText(0, "Some **bold** text.\n\n- a\n- b\n"))
        await pilot.pause()
        live = [line for line in screen_text(app).splitlines() if "Turn 1" not in line]
        app.transcript.post_message(m.TurnEnded([], 1, 1))
        await wait_until(pilot, lambda: not app.transcript.turns[0].live)
        await pilot.pause()
        done = [line for line in screen_text(app).splitlines() if "Turn 1" not in line]
        assert live == done
        assert isinstance(app.transcript.view.entries[-1], TurnBlock)
