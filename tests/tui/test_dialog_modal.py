"""The TUI's dialog modal and extension UI pieces, tested by what is drawn and what is answered.

A test tool asks the shell's dialog broker what the model's call says (as an extension or the
``ask_user`` tool would); the modal draws it, keys answer it, the tool returns the answer.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_core import ToolResultMessage
from pi_cli.shell import CodingAgent
from pi_cli.tui.screens.dialog import DialogScreen
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.fakes.ask_tool import AskTool
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until
from tests.tui.screen_text import screen_text


def asking(*calls: dict[str, Any]) -> tuple[ScriptedStream, AskTool]:
    replies = [reply(tool_call(f"c{i}", "ask", call)) for i, call in enumerate(calls)]
    return ScriptedStream(*replies, reply(text("thanks"))), AskTool()


def answers(shell: CodingAgent) -> list[dict[str, Any]]:
    return [json.loads(m.text) for m in shell.messages if isinstance(m, ToolResultMessage)]


def start(tmp_path: Path, stream: ScriptedStream, tool: AskTool) -> Any:
    shell = make_shell(tmp_path, stream, tools=[tool], approvals="interactive")
    tool.shell = shell
    return shell, make_app(shell)


async def test_select_one_option_draws_title_message_options_and_answers(tmp_path: Path) -> None:
    stream, tool = asking(
        {
            "kind": "select",
            "title": "Deploy where?",
            "message": "Pick the target.\x1b[2J",
            "options": [["staging", "the safe one"], "production"],
        }
    )
    shell, app = start(tmp_path, stream, tool)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Deploy where?" in screen_text(app))
        drawn = screen_text(app)
        assert "Deploy where?  (tool ask)" in drawn and "Pick the target." in drawn
        assert "staging  the safe one" in drawn and "production" in drawn
        assert "[Enter] Send   [Esc] Cancel" in drawn and "\x1b" not in drawn
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: app.is_settled)
    assert answers(shell)[0]["values"] == ["production"]


async def test_multiple_choice_ticks_with_space_and_takes_an_own_answer(tmp_path: Path) -> None:
    stream, tool = asking(
        {
            "kind": "select",
            "title": "Which checks?",
            "options": ["lint", "types", "tests"],
            "multiple": True,
            "allow_other": True,
        }
    )
    shell, app = start(tmp_path, stream, tool)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DialogScreen))
        await pilot.press("enter")  # nothing ticked: the modal says so and stays
        await wait_until(pilot, lambda: "Tick at least one option" in screen_text(app))
        await pilot.press("space", "down", "down", "space")
        await pilot.press("tab")
        await type_text(pilot, "bench")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled)
    assert answers(shell)[0]["values"] == ["lint", "tests"]
    assert answers(shell)[0]["other"] == "bench"


async def test_confirm_input_editor_and_escape(tmp_path: Path) -> None:
    stream, tool = asking(
        {"kind": "confirm", "title": "Clear the session?", "message": "All is lost."},
        {"kind": "input", "title": "Your name", "default": "pi"},
        {"kind": "editor", "title": "Notes", "default": "one"},
        {"kind": "confirm", "title": "Really?"},
    )
    shell, app = start(tmp_path, stream, tool)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Clear the session?" in screen_text(app))
        assert "[y] Yes   [n] No" in screen_text(app)
        await pilot.press("y")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DialogScreen) and app.screen.dialog.kind == "input",
        )
        await pilot.press("backspace", "backspace")
        await type_text(pilot, "Ada")
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DialogScreen) and app.screen.dialog.kind == "editor",
        )
        await wait_until(pilot, lambda: "[Ctrl+S] Send" in screen_text(app))
        await pilot.press("end", "enter")
        await type_text(pilot, "two")
        await pilot.press("ctrl+s")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DialogScreen) and app.screen.dialog.title == "Really?",
        )
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.is_settled)
        assert app.editor.text == ""  # nothing typed into the modals reached the editor
    got = answers(shell)
    assert got[0]["confirmed"] is True
    assert got[1]["text"] == "Ada"
    assert got[2]["text"] == "one\ntwo"
    assert got[3]["cancelled"] is True and got[3]["confirmed"] is False


async def test_an_abort_closes_the_modal(tmp_path: Path) -> None:
    stream, tool = asking({"kind": "input", "title": "Waiting"})
    shell, app = start(tmp_path, stream, tool)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DialogScreen))
        shell.abort()
        await wait_until(pilot, lambda: not isinstance(app.screen, DialogScreen))
        await wait_until(pilot, lambda: app.is_settled)
    assert not shell.dialogs.pending


async def test_footer_segment_status_line_and_panel_are_drawn_and_cleared(tmp_path: Path) -> None:
    shell = make_shell(tmp_path, ScriptedStream(), tools=[], approvals="interactive")
    shell.dialogs.set_ui("panel", "todo.list", lines=["TODO: ship it", "TODO: \x1b[31mtest it"])
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: "TODO: ship it" in screen_text(app))  # set before start
        shell.dialogs.set_ui("footer", "git.branch", text="⎇ main")
        shell.dialogs.set_ui("status", "demo.turns", text="Turn 3 running…")
        await wait_until(pilot, lambda: "⎇ main" in screen_text(app))
        rows = screen_text(app).splitlines()
        panel = next(i for i, row in enumerate(rows) if "TODO: ship it" in row)
        status = next(i for i, row in enumerate(rows) if "Turn 3 running…" in row)
        footer = next(i for i, row in enumerate(rows) if "⎇ main" in row)
        assert rows[panel + 1].strip().endswith("TODO: test it")  # the colour code dropped
        editor = app.editor.region.y
        assert panel < editor < status < footer  # panel above the editor, status under it
        assert "\x1b" not in screen_text(app)
        shell.dialogs.set_ui("panel", "todo.list")
        shell.dialogs.set_ui("footer", "git.branch")
        await wait_until(pilot, lambda: "⎇ main" not in screen_text(app))
        assert "TODO" not in screen_text(app) and "Turn 3 running…" in screen_text(app)
