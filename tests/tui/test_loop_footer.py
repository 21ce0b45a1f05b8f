"""Loops in the TUI: the footer shows the active ones and when the next fires; each firing is a
line of the transcript (what is drawn, through the same /loop as everywhere)."""

from __future__ import annotations

from pathlib import Path

from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.fakes.clock import ManualClock
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until
from tests.tui.screen_text import screen_text


async def test_the_footer_shows_active_loops_and_firings_are_drawn(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("deploy is green")), reply(text("still green")))
    shell = make_shell(tmp_path, stream, approvals="interactive")
    clock = ManualClock(t=1_796_000_000.0)  # 2026-11-30 00:53:20 UTC
    shell.schedules.clock = clock
    app = make_app(shell)
    try:
        async with app.run_test(size=SIZE) as pilot:
            assert "loop" not in app.footer.text
            await type_text(pilot, "/loop 1h check the deploy")
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.is_settled and "still" not in screen_text(app)
                             and "deploy is green" in screen_text(app))  # fmt: skip
            assert "⏲ 1 loop · next 01:53" in app.footer.text
            drawn = screen_text(app)
            assert "fired (#1, every 1h): check the deploy" in drawn
            clock.advance(3600)
            await wait_until(pilot, lambda: app.is_settled and "still green" in screen_text(app))
            assert "fired (#2, every 1h): check the deploy" in screen_text(app)
            assert "⏲ 1 loop · next 02:53" in app.footer.text
            await type_text(pilot, "/loop stop all")
            await pilot.press("enter")
            await wait_until(pilot, lambda: "⏲" not in app.footer.text)
    finally:
        await shell.aclose()
