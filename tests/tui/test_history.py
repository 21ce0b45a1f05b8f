"""A resumed conversation (``pi -c``, ``--session``, ``/resume``) is drawn, compactly."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from textual.widgets import Markdown, Static

from agent_core import messages as M
from pi_cli.tui import messages as m
from pi_cli.tui.app import PiApp, TuiOptions
from pi_cli.tui.widgets.transcript import HISTORY_MARKDOWN, HISTORY_SHOWN, Notice, UserMessageView
from tests.agent_core.scripted_stream import ScriptedStream
from tests.tui.helpers import SIZE, make_app, make_shell, wait_until


def _conversation(pairs: int) -> list[Any]:
    out: list[Any] = []
    for i in range(pairs):
        out.append(M.UserMessage(content=f"question {i}"))
        out.append(M.AssistantMessage(content=[M.TextContent(text=f"## Answer {i}\n\n- a\n- b\n")]))
    return out


def _shell(tmp_path: Path, pairs: int) -> Any:
    shell = make_shell(tmp_path, ScriptedStream(), tools=[])
    shell.agent.replace_messages(_conversation(pairs))
    return shell


def _check_history(app: PiApp, pairs: int) -> None:
    users = [u.text for u in app.query(UserMessageView)]
    answers = list(app.query(".assistant-text.history"))
    assert len(users) + len(answers) == min(HISTORY_SHOWN, 2 * pairs)
    assert users[-1] == f"question {pairs - 1}"
    assert sum(isinstance(a, Markdown) for a in answers) == min(HISTORY_MARKDOWN, len(answers))
    assert isinstance(answers[-1], Markdown)
    if 2 * pairs > HISTORY_SHOWN:
        assert not isinstance(answers[0], Markdown) and isinstance(answers[0], Static)
        hidden = 2 * pairs - HISTORY_SHOWN
        assert any(f"… {hidden} earlier messages" in str(n.render()) for n in app.query(Notice))


async def test_a_shell_built_with_messages_shows_them(tmp_path: Path) -> None:
    app = make_app(_shell(tmp_path, 3))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        _check_history(app, 3)


async def test_a_deferred_shell_with_messages_shows_them(tmp_path: Path) -> None:
    release = threading.Event()

    def factory():
        release.wait(10)
        return _shell(tmp_path, 30)

    app = PiApp(
        None,
        TuiOptions(clock=lambda: 0.0, persist_theme=False, cursor_blink=False, cwd=tmp_path),
        shell_factory=factory,
    )
    async with app.run_test(size=SIZE) as pilot:
        release.set()
        await wait_until(pilot, lambda: app.shell is not None)
        await pilot.pause()
        _check_history(app, 30)


async def test_resuming_a_long_session_draws_only_its_tail(tmp_path: Path) -> None:
    shell = _shell(tmp_path, 0)
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        shell.agent.replace_messages(_conversation(250))
        app.post_message(m.SessionSwitched("resume"))
        await wait_until(pilot, lambda: len(list(app.query(UserMessageView))) > 0)
        await pilot.pause()
        _check_history(app, 250)
