"""Loops in the plain REPL: each firing is a line of the scrollback, the toolbar shows the active
loops; a catch-up after a restart is asked and answered at the prompt."""

from __future__ import annotations

from pathlib import Path

from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.fakes.clock import ManualClock
from tests.modes.plain.harness import ENTER, plain_repl


async def test_firings_are_printed_and_the_toolbar_shows_the_loops(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("green")), reply(text("still green")))
    clock = ManualClock(t=1_796_000_000.0)  # 2026-11-30 00:53:20 UTC
    async with plain_repl(tmp_path, stream, approvals="interactive") as h:
        h.shell.schedules.clock = clock
        h.send("/loop 30m check the deploy" + ENTER)
        await h.until(lambda: "green" in h.output, what="the first firing's answer")
        await h.idle()
        assert "⏲ 1 loop · next 01:23 (/loop)" in h.repl._toolbar()
        clock.advance(1800)
        await h.until(lambda: "still green" in h.output, what="the second firing's answer")
        await h.idle()
        assert "fired (#1, every 30m): check the deploy" in h.output
        assert "fired (#2, every 30m): check the deploy" in h.output
        assert "next 01:53 (/loop)" in h.repl._toolbar()
        h.send("/loop stop all" + ENTER)
        await h.until(lambda: "Stopped 1 loop." in h.output, what="the loop stopped")
        assert "⏲" not in h.repl._toolbar()
        assert await h.quit() == 0


async def test_a_catch_up_is_asked_at_the_prompt_and_a_yes_fires_once(tmp_path: Path) -> None:
    from pi_cli.shell.coding_agent import CodingAgent, ShellOptions

    clock = ManualClock(t=1_796_000_000.0)
    (tmp_path / "project").mkdir()
    first = CodingAgent(ShellOptions(cwd=tmp_path / "project", stream_fn=ScriptedStream()))
    first.schedules.clock = clock
    loop = first.schedules.create("check the deploy", every_s=600)
    await first.aclose()
    clock.t += 3 * 600 + 5  # closed for half an hour: three firings fell due
    stream = ScriptedStream(reply(text("caught up: green")))
    async with plain_repl(tmp_path, stream, approvals="interactive", continue_session=True) as h:
        h.shell.schedules.clock = clock  # before the loop's first round starts the timer
        await h.until(lambda: "Fire it once now?" in h.output, what="the catch-up question")
        assert f"3 firings of loop {loop.id} (every 10m: 'check the deploy') missed" in h.output
        h.send("y" + ENTER)
        await h.until(lambda: "caught up: green" in h.output, what="the one catch-up firing")
        await h.idle()
        assert "fired (#1, every 10m, catching up 3 missed): check the deploy" in h.output
        assert stream.calls == 1
        assert await h.quit() == 0
