"""``ask_user`` through the shell's dialog broker: answers, multi-select, an own answer, a
dismissed question, an abort, and one-shot mode where nobody can answer (never hangs)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from pi_cli.shell.events.dialogs import DialogRequested, DialogResolved
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.agent_tools.conftest import RunPi, fake_args, make_shell, record, tool_texts

DB = {
    "question": "Which database should the service use?",
    "header": "Database",
    "options": [
        {"label": "Postgres (Recommended)", "description": "what the rest of the stack runs"},
        {"label": "SQLite", "description": "one file, no server"},
    ],
}
FEATURES = {
    "question": "Which features should ship first?",
    "header": "Features",
    "options": [{"label": "Login"}, {"label": "Search"}, {"label": "Export"}],
    "multiSelect": True,
}


def _ask(server: FakeProviderServer, *questions: dict[str, Any]) -> None:
    server.add(
        Turn(tool_calls=[ToolCallSpec("ask_user", {"questions": list(questions)}, id="q1")]),
        Turn(text="done"),
    )


async def _answering(shell: Any, events: list[Any], answers: list[object]) -> None:
    """Answer each dialog as it comes, in order."""
    seen: set[str] = set()
    while answers:
        await asyncio.sleep(0.01)
        for event in events:
            if isinstance(event, DialogRequested) and event.id not in seen:
                seen.add(event.id)
                assert shell.answer(event.id, answers.pop(0))


async def test_answers_multi_select_and_an_own_answer_reach_the_model(
    project: Path, server: FakeProviderServer
) -> None:
    _ask(server, DB, FEATURES)
    shell = make_shell(project, server)
    shell.dialogs.asking = "interactive"
    events = record(shell)
    answering = asyncio.ensure_future(
        _answering(shell, events, [{"value": "SQLite"}, {"values": ["Login", "Export"]}])
    )
    await shell.submit("plan the service")
    await shell.wait_idle()
    await answering
    asked = [e for e in events if isinstance(e, DialogRequested)]
    assert [(a.title, a.multiple, a.allow_other, a.message) for a in asked] == [
        ("Database: Which database should the service use?", False, True, "question 1 of 2"),
        ("Features: Which features should ship first?", True, True, "question 2 of 2"),
    ]
    assert asked[0].options[0].description == "what the rest of the stack runs"
    assert asked[0].source == "tool ask_user"
    (text,) = tool_texts(server.requests[-1])
    assert text.startswith(
        'The user answered: "Which database should the service use?"="SQLite", '
        '"Which features should ship first?"="Login, Export".'
    )
    await shell.aclose()


async def test_an_own_answer_and_a_dismissed_question(
    project: Path, server: FakeProviderServer
) -> None:
    _ask(server, DB, FEATURES)
    shell = make_shell(project, server)
    shell.dialogs.asking = "interactive"
    events = record(shell)
    answering = asyncio.ensure_future(
        _answering(shell, events, [{"value": "MySQL, we run it already"}, {"cancelled": True}])
    )
    await shell.submit("plan the service")
    await shell.wait_idle()
    await answering
    (text,) = tool_texts(server.requests[-1])
    assert '"Which database should the service use?"="MySQL, we run it already"' in text
    assert "dismissed the question" in text and "Features" not in text
    await shell.aclose()


async def test_an_abort_ends_the_question_and_the_run(
    project: Path, server: FakeProviderServer
) -> None:
    _ask(server, DB)
    shell = make_shell(project, server)
    shell.dialogs.asking = "interactive"
    events = record(shell)
    done = shell.submit("plan the service")
    while not any(isinstance(e, DialogRequested) for e in events):
        await asyncio.sleep(0.01)
    shell.abort()
    await done
    await shell.wait_idle()
    resolved = [e for e in events if isinstance(e, DialogResolved)]
    assert [r.by for r in resolved] == ["aborted"]
    assert not shell.dialogs.pending
    assert len(server.requests) == 1  # the model was not asked again
    await shell.aclose()


async def test_nobody_to_ask_is_said_at_once(project: Path, server: FakeProviderServer) -> None:
    _ask(server, DB)
    shell = make_shell(project, server)  # asking="none": one-shot and JSON mode
    await shell.submit("plan the service")
    await shell.wait_idle()
    (text,) = tool_texts(server.requests[-1])
    assert text.startswith("No user is available to answer (one-shot and JSON mode cannot ask).")
    await shell.aclose()


def test_one_shot_returns_no_user_and_finishes(server: FakeProviderServer, run_pi: RunPi) -> None:
    _ask(server, DB)
    out = run_pi("-p", "plan the service", *fake_args(server), timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "done"
    (text,) = tool_texts(server.requests[-1])
    assert "No user is available to answer" in text


@pytest.mark.parametrize(
    "questions",
    [
        [],
        [{**DB, "options": [{"label": "only one"}]}],
        [{**DB, "options": [{"label": "A"}, {"label": "A"}]}],
        [DB, DB],
        [
            DB,
            FEATURES,
            {**DB, "question": "x?"},
            {**DB, "question": "y?"},
            {**DB, "question": "z?"},
        ],
        [{**DB, "header": "h" * 31}],
    ],
)
async def test_malformed_questions_are_refused_before_anyone_is_asked(
    project: Path, server: FakeProviderServer, questions: list[dict[str, Any]]
) -> None:
    server.add(
        Turn(tool_calls=[ToolCallSpec("ask_user", {"questions": questions}, id="q1")]),
        Turn(text="done"),
    )
    shell = make_shell(project, server)
    shell.dialogs.asking = "interactive"
    events = record(shell)
    await shell.submit("ask")
    await shell.wait_idle()
    assert not [e for e in events if isinstance(e, DialogRequested)]
    (text,) = tool_texts(server.requests[-1])
    assert "validation" in text.lower() or "invalid" in text.lower(), json.dumps(text)
    await shell.aclose()


async def test_a_front_ends_timeout_tells_the_model(
    project: Path, server: FakeProviderServer
) -> None:
    """A remote client (RPC, ACP) that does not answer within its timeout: the question ends
    and the model hears it was not answered in time (the run goes on)."""
    _ask(server, DB)
    shell = make_shell(project, server)
    shell.dialogs.asking = "remote"
    shell.dialogs.remote_timeout_s = 0.2
    events = record(shell)
    await shell.submit("plan the service")
    await shell.wait_idle()
    assert [e.by for e in events if isinstance(e, DialogResolved)] == ["timeout"]
    (text,) = tool_texts(server.requests[-1])
    assert text.startswith("The user did not answer in time.")
    assert shell.messages[-1].text == "done"  # type: ignore[union-attr]
    await shell.aclose()
