"""Transcript search (Ctrl+F) by what is drawn: incremental, next / previous, a match in a folded
thinking block unfolds it and scrolls to it, Esc closes and clears the highlights."""

from __future__ import annotations

from pathlib import Path

from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from pi_cli.tui.screens.search import SearchScreen
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, thinking
from tests.tui.helpers import SIZE, make_app, type_text, wait_until
from tests.tui.screen_text import screen_text


async def _session(project: Path) -> Path:
    replies = [
        reply(thinking("The zebra is in the thought."), text("First answer about needles.")),
        *(reply(text(f"Filler answer {i}.\n\n" + "line\n" * 30)) for i in range(4)),
        reply(text("Last answer, one more needle.")),
    ]
    shell = CodingAgent(ShellOptions(cwd=project, stream_fn=ScriptedStream(*replies)))
    for prompt in ("first", "two", "three", "four", "five", "last"):
        await shell.submit(prompt)
    await shell.aclose()
    assert shell.session.path is not None
    return shell.session.path


async def _search(pilot, app, query: str, status: str) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("ctrl+f")
    await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen))
    await type_text(pilot, query)
    await wait_until(pilot, lambda: status in screen_text(app), timeout=20)


async def _close(pilot, app) -> None:  # type: ignore[no-untyped-def]
    await pilot.press("escape")
    await wait_until(pilot, lambda: not isinstance(app.screen, SearchScreen))
    await pilot.pause()


async def test_search_finds_highlights_steps_and_unfolds(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    path = await _session(project)
    shell = CodingAgent(ShellOptions(cwd=project, stream_fn=ScriptedStream(), session=str(path)))
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "one more needle" in screen_text(app), timeout=20)
        assert "zebra" not in screen_text(app)  # a resumed thinking block is folded
        # The first match at or below the top of the screen: the last answer's.
        await _search(pilot, app, "needle", "2 of 2")
        drawn = screen_text(app)
        assert "[Enter ↓] Next" in drawn and "[↑] Previous" in drawn and "[Esc] Close" in drawn
        assert app.transcript.view._query is not None  # the matches are painted
        await pilot.press("enter")  # the next wraps round to the first
        await wait_until(pilot, lambda: "1 of 2" in screen_text(app))
        await _close(pilot, app)
        await wait_until(pilot, lambda: "First answer about needles." in screen_text(app))
        assert "one more needle" not in screen_text(app)  # scrolled up to it
        assert app.transcript.view._query is None  # Esc cleared the highlights
        assert app.editor.text == ""  # nothing typed reached the editor
        # A match inside a folded thinking block unfolds it; no match is said plainly.
        await _search(pilot, app, "ZEBRA", "1 of 1")
        await type_text(pilot, "-nowhere")
        await wait_until(pilot, lambda: "no match for “ZEBRA-nowhere”" in screen_text(app))
        for _ in "-nowhere":
            await pilot.press("backspace")
        await wait_until(pilot, lambda: "1 of 1" in screen_text(app))
        await pilot.press("up")  # previous: the only match again
        await _close(pilot, app)
        await wait_until(pilot, lambda: "The zebra is in the thought." in screen_text(app))
