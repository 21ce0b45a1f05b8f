"""``ask_user`` in the TUI: each question is the dialog modal, drawn with its header, options and
descriptions and the line for an own answer; keys answer; the model gets the answers."""

from __future__ import annotations

from pathlib import Path

from agent_core import ToolResultMessage
from pi_cli.tui.screens.dialog import DialogScreen
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until
from tests.tui.screen_text import screen_text

QUESTIONS = [
    {
        "question": "Which database should the service use?",
        "header": "Database",
        "options": [
            {"label": "Postgres (Recommended)", "description": "what the stack runs"},
            {"label": "SQLite", "description": "one file"},
        ],
    },
    {
        "question": "Which features first?",
        "header": "Features",
        "options": [{"label": "Login"}, {"label": "Search"}, {"label": "Export"}],
        "multiSelect": True,
    },
]


async def test_ask_user_questions_are_drawn_and_answered_with_keys(tmp_path: Path) -> None:
    stream = ScriptedStream(
        reply(tool_call("q1", "ask_user", {"questions": QUESTIONS})), reply(text("thanks"))
    )
    shell = make_shell(tmp_path, stream, approvals="interactive")  # the built-in tools
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "plan it")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Which database" in screen_text(app))
        drawn = screen_text(app)
        assert "Database: Which database should the service use?  (tool ask_user)" in drawn
        assert "question 1 of 2" in drawn
        assert "Postgres (Recommended)  what the stack runs" in drawn
        assert "or type an answer of your own" in drawn
        assert "[Tab] Your own answer" in drawn
        await pilot.press("down", "enter")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DialogScreen) and app.screen.dialog.multiple,
        )
        assert "Features: Which features first?" in screen_text(app)
        await pilot.press("space", "down", "down", "space", "enter")
        await wait_until(pilot, lambda: app.is_settled and "thanks" in screen_text(app))
    (result,) = [m for m in shell.messages if isinstance(m, ToolResultMessage)]
    assert result.text.startswith(
        'The user answered: "Which database should the service use?"="SQLite", '
        '"Which features first?"="Login, Export".'
    )
