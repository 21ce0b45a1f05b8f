"""End to end in tmux: the real ``pi --plain`` asks ``ask_user``'s questions on its input line
(numbered options with descriptions, several numbers for a multiple choice, an own answer) and
the model gets the answers."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.modes.plain.tmux_pane import Pane, needs_tmux, plain_command

pytestmark = needs_tmux

PROMPT = re.compile(r"^›\s*$", re.MULTILINE)
QUESTIONS = [
    {
        "question": "Which database?",
        "header": "Database",
        "options": [
            {"label": "Postgres", "description": "what the stack runs"},
            {"label": "SQLite"},
        ],
    },
    {
        "question": "Which features?",
        "header": "Features",
        "options": [{"label": "Login"}, {"label": "Search"}, {"label": "Export"}],
        "multiSelect": True,
    },
    {"question": "Which CI?", "header": "CI", "options": [{"label": "A"}, {"label": "B"}]},
]


def test_ask_user_in_a_real_terminal(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    script = [
        Turn(tool_calls=[ToolCallSpec("ask_user", {"questions": QUESTIONS}, id="q1")]),
        Turn(text="Thanks for the answers."),
    ]
    with FakeProviderServer(script) as server:
        pane = Pane(plain_command(tmp_path / "home", server.port), project)
        try:
            pane.wait_for(PROMPT)
            pane.type("plan it", "Enter")
            screen = pane.wait_for("? Database: Which database? (tool ask_user)")
            assert "1. Postgres — what the stack runs" in screen and "2. SQLite" in screen
            assert "(or type an answer of your own)" in screen
            pane.type("2", "Enter")
            screen = pane.wait_for("? Features: Which features? (tool ask_user)")
            assert "numbers, comma-separated or your own answer" in screen
            pane.type("3, 1", "Enter")
            pane.wait_for("? CI: Which CI? (tool ask_user)")
            pane.type("GitHub Actions", "Enter")
            pane.wait_for("Thanks for the answers.")
        finally:
            pane.close()
        tool = [m for m in server.requests[-1]["messages"] if m["role"] == "tool"][-1]
    assert json.dumps(tool["content"]).startswith(
        '"The user answered: \\"Which database?\\"=\\"SQLite\\", '
        '\\"Which features?\\"=\\"Export, Login\\", \\"Which CI?\\"=\\"GitHub Actions\\".'
    )
