"""The plain REPL asks dialogs on its input line: numbers, own answers, y/n, text; Ctrl+C cancels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_core import ToolResultMessage
from pi_cli.modes.plain.dialogs import parse_line
from pi_cli.shell import DialogBroker
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.fakes.ask_tool import AskTool
from tests.modes.plain.harness import CTRL_C, ENTER, plain_repl


def request(kind: Any = "select", **kwargs: Any) -> Any:
    return DialogBroker(lambda e: None).request(kind, "Q", **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "line", "expected"),
    [
        ({"options": ["a", "b", "c"]}, "2", (("b",), None)),
        ({"options": ["a", "b", "c"]}, " B ", (("b",), None)),
        ({"options": ["a", "b", "c"]}, "4", None),
        ({"options": ["a", "b", "c"]}, "1,2", None),
        ({"options": ["a", "b", "c"]}, "", None),
        ({"options": ["a", "b"], "multiple": True}, "2, 1, 2", (("b", "a"), None)),
        ({"options": ["a", "b"], "allow_other": True}, "neither", ((), "neither")),
        ({"options": ["a", "b"], "allow_other": True}, "1", (("a",), None)),
    ],
)
def test_a_typed_line_answers_a_select(kwargs: dict[str, Any], line: str, expected: Any) -> None:
    answer = parse_line(line, request(**kwargs))
    assert (None if answer is None else (answer.values, answer.other)) == expected


def test_confirm_and_text_lines() -> None:
    confirm = request("confirm")
    assert parse_line("Yes", confirm).confirmed is True  # type: ignore[union-attr]
    assert parse_line("n", confirm).confirmed is False  # type: ignore[union-attr]
    assert parse_line("maybe", confirm) is None
    assert parse_line("  spaced  ", request("input")).text == "  spaced  "  # type: ignore[union-attr]


async def test_the_repl_asks_each_question_and_the_tool_gets_the_answers(tmp_path: Path) -> None:
    calls = [
        {"kind": "select", "title": "Pick a colour", "options": [["red", "warm"], "blue"]},
        {"kind": "confirm", "title": "Sure?"},
        {"kind": "input", "title": "Name"},
        {"kind": "select", "title": "Again", "options": ["x"]},
    ]
    stream = ScriptedStream(
        *(reply(tool_call(f"c{i}", "ask", c)) for i, c in enumerate(calls)), reply(text("ok"))
    )
    tool = AskTool()
    async with plain_repl(tmp_path, stream, [tool], approvals="interactive") as h:
        tool.shell = h.shell

        def asked(title: str) -> bool:
            return h.repl.asking is not None and title in h.output

        h.send("go" + ENTER)
        await h.until(lambda: asked("Pick a colour (tool ask)"), what="the question")
        assert "1. red — warm" in h.output and "2. blue" in h.output
        h.send("7" + ENTER)  # no such option: asked again
        h.send("2" + ENTER)
        await h.until(lambda: asked("Sure?"), what="the confirmation")
        h.send("y" + ENTER)
        await h.until(lambda: asked("? Name"), what="the input")
        h.send("Ada" + ENTER)
        await h.until(lambda: asked("? Again"), what="the last question")
        h.send(CTRL_C)
        await h.idle()
        assert await h.quit() == 0
    results = [json.loads(m.text) for m in h.shell.messages if isinstance(m, ToolResultMessage)]
    assert results[0]["values"] == ["blue"]
    assert results[1]["confirmed"] is True
    assert results[2]["text"] == "Ada"
    assert results[3]["cancelled"] is True


async def test_ask_user_is_asked_on_the_input_line(tmp_path: Path) -> None:
    """The ask_user tool's questions: numbered options with descriptions, a multiple choice by
    comma-separated numbers, then an own answer."""
    from tools.ask_user import AskUserTool

    questions = [
        {
            "question": "Which database?",
            "header": "Database",
            "options": [{"label": "Postgres", "description": "the stack's"}, {"label": "SQLite"}],
        },
        {
            "question": "Which features?",
            "header": "Features",
            "options": [{"label": "Login"}, {"label": "Search"}, {"label": "Export"}],
            "multiSelect": True,
        },
        {"question": "Which CI?", "header": "CI", "options": [{"label": "A"}, {"label": "B"}]},
    ]
    stream = ScriptedStream(
        reply(tool_call("q1", "ask_user", {"questions": questions})), reply(text("ok"))
    )
    tool = AskUserTool()
    async with plain_repl(tmp_path, stream, [tool], approvals="interactive") as h:
        tool.ask = h.shell.agent_tools.services().user_asker  # the shell's asker, as built in

        def asked(title: str) -> bool:
            return h.repl.asking is not None and title in h.output

        h.send("go" + ENTER)
        await h.until(lambda: asked("? Database: Which database? (tool ask_user)"), what="q1")
        assert (
            "1. Postgres — the stack's" in h.output
            and "(or type an answer of your own)" in h.output
        )
        h.send("2" + ENTER)
        await h.until(lambda: asked("? Features: Which features?"), what="q2")
        h.send("3, 1" + ENTER)
        await h.until(lambda: asked("? CI: Which CI?"), what="q3")
        h.send("GitHub Actions" + ENTER)
        await h.idle()
        assert await h.quit() == 0
    (result,) = [m for m in h.shell.messages if isinstance(m, ToolResultMessage)]
    assert result.text.startswith(
        'The user answered: "Which database?"="SQLite", "Which features?"="Export, Login", '
        '"Which CI?"="GitHub Actions".'
    )


async def test_an_extension_fills_the_input_line_and_reads_it(
    tmp_path: Path, pi_home: Path
) -> None:
    (pi_home / "extensions").mkdir()
    (pi_home / "extensions" / "drafts.py").write_text(
        "def register(pi):\n"
        "    @pi.command('prefill')\n"
        "    def prefill(args, ctx):\n"
        "        ctx.ui.set_editor_text('draft \\x1b[31mfrom\\x1b[0m the extension')\n"
        "    @pi.key('peek', 'f7')\n"
        "    def peek(event, ctx):\n"
        "        ctx.ui.notify('typed: ' + ctx.ui.get_editor_text())\n"
    )
    stream = ScriptedStream(reply(text("ok")))
    async with plain_repl(tmp_path, stream) as h:
        h.send("/prefill" + ENTER)
        await h.until(lambda: h.repl.session.default_buffer.text == "draft from the extension")
        h.send(" now")
        await h.until(lambda: h.repl.session.default_buffer.text.endswith(" now"))
        h.send("\x1b[18~")  # F7
        await h.until(lambda: "typed: draft from the extension now" in h.output)
        h.send(ENTER)
        await h.until(lambda: "tokens" in h.output)
    assert stream.user_texts(0) == ["draft from the extension now"]
