"""Approval dialogs by what is drawn: every key fits the width (the row wraps rather than losing
"Deny"), Esc in a sub-step goes back one step, and every dialog shows the same hint row."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_cli.tui.screens.approval import ApprovalScreen
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tui.helpers import make_app, make_shell, type_text, wait_until
from tests.tui.screen_text import screen_text


def _app(tmp_path: Path, *commands: str):  # type: ignore[no-untyped-def]
    calls = [reply(tool_call(f"c{i}", "bash", {"command": c})) for i, c in enumerate(commands)]
    stream = ScriptedStream(*calls, reply(text("done")))
    shell = make_shell(
        tmp_path, stream, tools=None, approvals="interactive", permission_mode="default"
    )
    return make_app(shell), shell


@pytest.mark.parametrize("width", [60, 80, 100, 140])
async def test_every_key_of_the_approval_is_drawn_at_any_width(tmp_path: Path, width: int) -> None:
    app, _ = _app(tmp_path, "touch a")
    async with app.run_test(size=(width, 40)) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.pause()
        drawn = " ".join(screen_text(app).split())
        for label in ("[y] Allow once", "[s] Allow for this session", "[n] Deny", "[Esc]"):
            assert label in drawn, (label, screen_text(app))
        assert all(len(row) <= width for row in screen_text(app).splitlines())
        await pilot.press("escape")


async def test_esc_in_a_sub_step_goes_back_one_step(tmp_path: Path) -> None:
    app, shell = _app(tmp_path, "touch a")
    async with app.run_test(size=(100, 40)) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        screen = app.screen
        await pilot.press("a")  # always: where to save it
        await wait_until(pilot, lambda: "[p] Always, in the project settings" in screen_text(app))
        assert "[Esc] Back" in screen_text(app) and "[y] Allow once" not in screen_text(app)
        await pilot.press("escape")  # back to the choices, not a denial
        await wait_until(pilot, lambda: "[y] Allow once" in screen_text(app))
        assert app.screen is screen
        await pilot.press("m")  # the message box
        await type_text(pilot, "not now")
        await wait_until(pilot, lambda: "[Enter] Deny with this message" in screen_text(app))
        await pilot.press("escape")  # back again; the letters did not answer anything
        await wait_until(pilot, lambda: "[y] Allow once" in screen_text(app))
        assert app.screen is screen and "not now" not in screen_text(app)
        await pilot.press("y")
        await wait_until(pilot, lambda: app.is_settled)
        await shell.wait_idle()
    assert (tmp_path / "a").exists()


async def test_every_dialog_ends_with_the_same_hint_row(tmp_path: Path) -> None:
    """The approval, the folder-trust question and the choice dialogs: keys in brackets, Esc
    named, in one row under the question."""
    from pi_cli.tui.screens.approval import TrustScreen
    from pi_cli.tui.screens.choice import ChoiceScreen

    app, _ = _app(tmp_path)
    async with app.run_test(size=(70, 40)) as pilot:
        app.push_screen(TrustScreen(str(tmp_path), ["hooks: a SessionStart command"], False))
        await wait_until(pilot, lambda: "Trust this folder?" in screen_text(app))
        drawn = " ".join(screen_text(app).split())
        assert "[y] Trust this folder (remembered)" in drawn
        assert "[Esc] Do not trust it (remembered)" in drawn
        app.pop_screen()
        app.push_screen(
            ChoiceScreen("Pick one", ["a body line"], [("a", "First"), ("b", "Second")])
        )
        await wait_until(pilot, lambda: "Pick one" in screen_text(app))
        drawn = " ".join(screen_text(app).split())
        assert "[Enter] Choose" in drawn and "[Esc] Cancel" in drawn
