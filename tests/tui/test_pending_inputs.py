"""Input the agent cannot take yet (pi starting, the shell busy without a model run) is the app's
own queue: shown as follow-ups, submitted one entry at a time when the shell is idle, and
recoverable with Alt+Up / Esc."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from pi_cli.shell.commands import CommandResult, SlashCommand
from pi_cli.tui.app import PiApp, TuiOptions
from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until
from tests.tui.helpers import notices as notice_texts
from tests.tui.screen_text import screen_text


def _options(cwd: Path) -> TuiOptions:
    return TuiOptions(
        clock=lambda: 0.0,
        cwd_label="~/project",
        session_label="test-session",
        extended_keys=False,
        persist_theme=False,
        cursor_blink=False,
        cwd=cwd,
    )


def _deferred_app(tmp_path: Path, stream: ScriptedStream) -> tuple[PiApp, threading.Event]:
    release = threading.Event()

    def factory():  # runs in the boot thread; waits so the test can type first
        release.wait(10)
        return make_shell(tmp_path, stream)

    return PiApp(None, _options(tmp_path), shell_factory=factory), release


async def _enter(pilot: Any, line: str) -> None:
    await type_text(pilot, line)
    await pilot.press("enter")
    await pilot.pause()


async def test_inputs_typed_while_starting_run_in_order_commands_as_commands(
    tmp_path: Path,
) -> None:
    stream = ScriptedStream(reply(text("first answer")), reply(text("second answer")))
    app, release = _deferred_app(tmp_path, stream)
    async with app.run_test(size=SIZE) as pilot:
        for line in ("/session", "first q", "/help", "second q"):
            await _enter(pilot, line)
        assert app.queue_view.steering == []
        assert app.queue_view.follow_ups == ["/session", "first q", "/help", "second q"]
        assert "Follow-up: first q" in screen_text(app)
        release.set()
        await wait_until(
            pilot, lambda: stream.calls == 2 and app.is_settled and not app.inputs.startup
        )
        await pilot.pause()
        # Each prompt is its own run; the commands ran as commands, never reaching the model.
        assert stream.user_texts(0) == ["first q"]
        assert stream.user_texts(1) == ["first q", "second q"]
        notices = " ".join(notice_texts(app))
        assert "/help" in notices or "List commands" in notices
        assert app.queue_view.follow_ups == [] and not app.queue_view.has_class("-shown")


async def test_alt_up_while_starting_takes_the_inputs_back(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("unused")))
    app, release = _deferred_app(tmp_path, stream)
    async with app.run_test(size=SIZE) as pilot:
        await _enter(pilot, "one")
        await _enter(pilot, "two")
        await pilot.press("alt+up")
        await pilot.pause()
        assert app.editor.text == "one\ntwo"
        assert app.queue_view.follow_ups == []
        release.set()
        await wait_until(pilot, lambda: app.shell is not None and app.is_settled)
        await pilot.pause(0.1)
        assert stream.calls == 0


def _slow_command_shell(tmp_path: Path, stream: ScriptedStream) -> tuple[Any, asyncio.Event]:
    """A shell with ``/slow``: busy without a model run, like ``/compact`` or post-run compaction."""
    shell = make_shell(tmp_path, stream, tools=[])
    done = asyncio.Event()

    async def slow(_shell: Any, _args: str) -> CommandResult:
        await done.wait()
        return CommandResult(output="slow done")

    shell.commands.register(SlashCommand("slow", "Wait (test)", slow))
    return shell, done


@pytest.mark.parametrize("chord", ["enter", "tab", "alt+enter"])
async def test_input_while_busy_without_a_run_is_sent_after_it(tmp_path: Path, chord: str) -> None:
    stream = ScriptedStream(reply(text("later answer")))
    shell, done = _slow_command_shell(tmp_path, stream)
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await _enter(pilot, "/slow")
        assert app.is_live
        await type_text(pilot, "later")
        await pilot.press(chord)
        await pilot.pause()
        assert app.editor.text == ""
        assert [item.kind for item in shell.queued()] == ["held"]  # no run would take it now
        assert app.queue_view.follow_ups == ["later"] and app.queue_view.steering == []
        done.set()
        await wait_until(pilot, lambda: stream.calls == 1 and app.is_settled)
        assert stream.user_texts(0) == ["later"]
        assert app.queue_view.follow_ups == []


@pytest.mark.parametrize("key", ["escape", "alt+up"])
async def test_escape_and_alt_up_restore_input_kept_while_busy(tmp_path: Path, key: str) -> None:
    stream = ScriptedStream(reply(text("unused")))
    shell, done = _slow_command_shell(tmp_path, stream)
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await _enter(pilot, "/slow")
        await _enter(pilot, "kept")
        await pilot.press(key)
        await pilot.pause()
        assert app.editor.text == "kept" and app.queue_view.follow_ups == []
        done.set()
        await wait_until(pilot, lambda: app.is_settled)
        await pilot.pause(0.1)
        assert stream.calls == 0


async def test_a_failed_run_gives_queued_text_back_to_the_editor(tmp_path: Path) -> None:
    from tests.agent_core.scripted_stream import tool_call
    from tests.tui.helpers import GateTool

    gate = GateTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "build"})),
        reply(error="HTTP 401: invalid api key"),
    )
    app = make_app(make_shell(tmp_path, stream, tools=[gate]))
    async with app.run_test(size=SIZE) as pilot:
        await _enter(pilot, "go")
        await gate.started.wait()
        await type_text(pilot, "then deploy")
        await pilot.press("tab")  # follow-up while live
        await pilot.pause()
        assert app.queue_view.follow_ups == ["then deploy"]
        gate.release.set()
        await wait_until(pilot, lambda: app.is_settled and app.editor.text == "then deploy")
        assert stream.calls == 2  # the follow-up was not sent into the same failure
        assert app.queue_view.follow_ups == []
