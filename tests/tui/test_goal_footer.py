"""A goal in the TUI: the footer shows its state and rounds as it is pursued; each round's
verdict is a line of the transcript (what is drawn, through the same /goal as everywhere)."""

from __future__ import annotations

from pathlib import Path

from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until
from tests.tui.screen_text import screen_text


async def test_the_footer_follows_the_goal_and_the_verdicts_are_shown(tmp_path: Path) -> None:
    stream = ScriptedStream(
        reply(text("first try")),
        reply(text("second try")),
        reply(text("third try")),
    )
    shell = make_shell(tmp_path, stream)
    shell.settings.goal.max_rounds = 2
    app = make_app(shell)
    try:
        async with app.run_test(size=SIZE) as pilot:
            assert "goal" not in app.footer.text
            await type_text(pilot, "/goal --check 'test -f ok.txt' ok.txt exists")
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.is_settled and "budget-limited" in app.footer.text)
            assert "goal budget-limited 2/2: ok.txt exists" in app.footer.text
            drawn = screen_text(app)
            assert "goal round 1: not met (check) — `test -f ok.txt` exited with code 1" in drawn
            assert "goal round 2: not met (check)" in drawn
            (tmp_path / "ok.txt").write_text("")
            await type_text(pilot, "/goal resume")
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.is_settled and "goal met" in app.footer.text)
            assert "goal round 1: met (check)" in screen_text(app)
            await type_text(pilot, "/goal drop")
            await pilot.press("enter")
            await wait_until(pilot, lambda: "goal" not in app.footer.text)
    finally:
        await shell.aclose()
