"""``!cmd`` runs the user's own command and sends its output with the next prompt; ``!!cmd``
shows it only (pi's habit)."""

from __future__ import annotations

from pathlib import Path

from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until
from tests.tui.screen_text import screen_text


async def test_bang_runs_a_command_and_the_model_reads_it_next(tmp_path: Path) -> None:
    (tmp_path / "marker.txt").write_text("hello from the file\n")
    stream = ScriptedStream(reply(text("noted")))
    shell = make_shell(tmp_path, stream, tools=[])
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "!cat marker.txt")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "hello from the file" in screen_text(app))
        await type_text(pilot, "!!echo secret-not-sent")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "secret-not-sent" in screen_text(app))
        assert "(not sent to the model)" in screen_text(app)
        assert stream.calls == 0  # running a command is not a prompt
        await type_text(pilot, "what did it say?")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled and stream.calls == 1)
    sent = "\n".join(stream.user_texts(0))
    assert "Ran `cat marker.txt`" in sent and "hello from the file" in sent
    assert "secret-not-sent" not in sent
    assert sent.rstrip().endswith("what did it say?")


async def test_a_failing_command_shows_its_exit_code(tmp_path: Path) -> None:
    shell = make_shell(tmp_path, ScriptedStream(), tools=[])
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "!echo boom; exit 3")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Command exited with code 3" in screen_text(app))
        assert "boom" in screen_text(app)
        assert not shell.busy


async def test_an_unknown_command_is_caught_and_asked_about(tmp_path: Path) -> None:
    """``/tpyo`` is not sent to the model unasked: send it, run the command meant, or edit it."""
    stream = ScriptedStream(reply(text("sent as asked")))
    shell = make_shell(tmp_path, stream, tools=[])
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/tpyo hello")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Unknown command /tpyo" in screen_text(app))
        assert "Send it to the model as a prompt" in screen_text(app)
        await pilot.press("escape")  # back to the editor, text kept
        await wait_until(pilot, lambda: app.editor.text == "/tpyo hello")
        assert stream.calls == 0
        app.editor.set_text("")
        await type_text(pilot, "/sesion")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Run /session" in screen_text(app))
        await pilot.press("down", "enter")  # the command it is close to
        await wait_until(pilot, lambda: "Session: " in screen_text(app))
        assert stream.calls == 0
        await type_text(pilot, "/tpyo hello")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Send it to the model" in screen_text(app))
        await pilot.press("enter")  # the first option: send it
        await wait_until(pilot, lambda: stream.calls == 1 and "sent as asked" in screen_text(app))
    assert stream.user_texts(0) == ["/tpyo hello"]


async def test_context_and_usage_are_drawn(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Be brief.\n")
    stream = ScriptedStream(reply(text("hello there")))
    app = make_app(make_shell(tmp_path, stream, tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "hi")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "hello there" in screen_text(app))
        await type_text(pilot, "/context")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "context files" in screen_text(app))
        drawn = screen_text(app)
        assert "AGENTS.md" in drawn and "0 tools" in drawn and "free" in drawn and "█" in drawn
        await type_text(pilot, "/usage")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "This session (1 answer)" in screen_text(app))
        assert "Today" in screen_text(app)
