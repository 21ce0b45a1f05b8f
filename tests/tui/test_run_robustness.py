"""Runs that misbehave: control characters in any text, a crashing agent loop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_core import AgentStart, MessageEnd, MessageStart, TurnStart
from pi_cli.tui.bridge import Bridge
from pi_cli.tui.document.entries import UserBlock
from pi_cli.tui.document.tool import ToolBlock
from pi_cli.tui.messages import clean
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, thinking, tool_call
from tests.tui.helpers import (
    SIZE,
    CommandArgs,
    StaticTool,
    blocks_of,
    make_app,
    make_shell,
    type_text,
    wait_until,
)
from tests.tui.helpers import notices as notice_texts

CLEAR = "\x1b[2J"
TITLE = "\x1b]0;PWNED\x07"


def _terminal_output(app: Any) -> str:
    return app.screen._compositor.render_full_update().render_segments(app.console)


def test_clean_removes_controls_but_keeps_tab_and_newline() -> None:
    assert clean(f"a{CLEAR}b\tc\nd\x7f\x9be\r") == "ab\tc\nde"  # the sequence goes whole


async def test_escape_sequences_never_reach_the_terminal(tmp_path: Path) -> None:
    tool = StaticTool("bash", CommandArgs, {f"ls{CLEAR}": f"out{TITLE}put"})
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": f"ls{CLEAR}"})),
        # The sequence split across deltas is removed too (character by character).
        reply(thinking(f"hm{TITLE}"), text("before\x1b", "[2Jafter")),
    )
    app = make_app(make_shell(tmp_path, stream, tools=[tool]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "hi")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled and len(app.transcript.turns) == 2)
        await pilot.pause()
        assert app.transcript.turns[1].text == "before[2Jafter"
        (block,) = blocks_of(app, ToolBlock)
        assert (
            "\x1b" not in str(block.args) and "output" in block.output_text
        )  # the sequence goes whole
        out = _terminal_output(app)
        assert "\x1b[2J" not in out and "\x1b]0;" not in out and "\x07" not in out


def test_user_messages_and_notices_are_cleaned_in_the_bridge() -> None:
    from agent_core import UserMessage
    from pi_cli.shell.events import Notice as ShellNotice

    posted: list[Any] = []
    bridge = Bridge(posted.append, lambda name, args: "")
    bridge(AgentStart())
    bridge(MessageStart(message=UserMessage(content=f"hi{CLEAR}")))
    bridge(ShellNotice(text=f"note{TITLE}", level="info"))
    assert [getattr(p, "text", None) for p in posted[1:]] == ["hi", "note"]  # whole sequences go


async def _crashing_loop(
    prompts: list[Any], context: Any, config: Any, emit: Any, signal: Any, **_: Any
) -> None:
    """A loop with a bug: starts a turn, records the prompt, then raises."""
    emit(AgentStart())
    emit(TurnStart())
    for prompt in prompts:
        context.messages.append(prompt)
        emit(MessageStart(message=prompt))
        emit(MessageEnd(message=prompt))
    raise KeyError("loop bug")


async def test_a_crashing_loop_shows_its_error_and_closes_the_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent_core.agent

    monkeypatch.setattr(agent_core.agent, "run_agent_loop", _crashing_loop)
    app = make_app(make_shell(tmp_path, ScriptedStream(reply(text("unused"))), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "hi")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled)
        await pilot.pause()
        notices = notice_texts(app)
        assert any("Run failed" in n and "loop bug" in n for n in notices), notices
        (panel,) = app.transcript.turns
        assert not panel.live and "running" not in str(panel.title)
        assert [u.text for u in blocks_of(app, UserBlock)] == ["hi"]
        assert not app.editor.live


async def test_a_late_run_started_does_not_leave_the_editor_live(tmp_path: Path) -> None:
    """RunStarted can be handled after run_input ended; Tab must not then queue a follow-up."""
    from pi_cli.tui import messages as m

    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        app.post_message(m.RunStarted())
        await pilot.pause()
        assert not app.editor.live


async def test_a_failing_command_during_a_run_is_a_notice_not_a_crash(tmp_path: Path) -> None:
    from pi_cli.shell.commands import SlashCommand
    from tests.tui.helpers import GateTool

    gate = GateTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "build"})), reply(text("done"))
    )
    shell = make_shell(tmp_path, stream, tools=[gate])

    async def broken(_shell: Any, _args: str) -> Any:
        raise RuntimeError("command bug")

    shell.commands.register(SlashCommand("broken", "Fails (test)", broken, while_running=True))
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await gate.started.wait()
        await type_text(pilot, "/broken")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("command bug" in text for text in notice_texts(app)))
        assert app.is_running and app.is_live
        gate.release.set()
        await wait_until(pilot, lambda: app.is_settled)
        assert stream.calls == 2


def test_odd_session_files_still_list_in_resume(tmp_path: Path) -> None:
    import json

    from pi_cli.tui.screens.pickers import session_items

    odd = [
        {"message": {"role": "user", "content": 5}},
        {"message": {"role": "user", "content": [{"type": "text", "text": None}]}},
    ]
    for i, entry in enumerate(odd):
        (tmp_path / f"odd{i}.jsonl").write_text(json.dumps(entry) + "\n")
    (tmp_path / "good.jsonl").write_text(
        json.dumps({"message": {"role": "user", "content": "hello"}}) + "\n"
    )
    labels = sorted(label.split("  ", 1)[1] for _, label in session_items(tmp_path))
    assert labels == ["hello", "odd0", "odd1"]
