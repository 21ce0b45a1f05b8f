"""The queue view (Alt+Q): pick ONE queued message and edit, delete, reorder or promote it while
the run goes on, through the shell's queue API; the list follows the shell's QueueChanged."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from pi_cli.tui.screens.queue_screen import QueueScreen
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tui.helpers import SIZE, GateTool, make_app, make_shell, type_text, wait_until


def _queued(shell: object) -> list[tuple[str, str]]:
    return [(item.text, item.kind) for item in shell.queued()]  # type: ignore[attr-defined]


async def test_one_queued_message_is_edited_moved_promoted_and_deleted(tmp_path: Path) -> None:
    gate = GateTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "build"})),
        reply(text("after the steer")),
        reply(text("after the follow-up")),
    )
    shell = make_shell(tmp_path, stream, tools=[gate])
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("alt+q")  # nothing queued: a note, no screen
        await pilot.pause()
        assert not isinstance(app.screen, QueueScreen)
        await type_text(pilot, "go")
        await pilot.press("enter")
        await gate.started.wait()
        for follow_up in ("first", "second", "third"):
            await type_text(pilot, follow_up)
            await pilot.press("alt+enter")
        await wait_until(pilot, lambda: len(shell.queued()) == 3)
        await pilot.press("alt+q")
        await wait_until(pilot, lambda: isinstance(app.screen, QueueScreen))
        screen = app.screen
        assert [text_ for _, text_, _ in screen.items] == ["first", "second", "third"]
        await pilot.press("down", "alt+up")  # "second" one place earlier
        await wait_until(pilot, lambda: _queued(shell)[0] == ("second", "follow_up"))
        assert screen.selected is not None and screen.selected[1] == "second"
        await pilot.press("down", "down", "s")  # "third" becomes a steer (steers go first)
        await wait_until(pilot, lambda: _queued(shell)[0] == ("third", "steer"))
        assert [text_ for _, text_, _ in screen.items] == ["third", "second", "first"]
        await pilot.press("down", "down", "d")  # delete "first"
        await wait_until(pilot, lambda: len(shell.queued()) == 2)
        await pilot.press("up", "e")  # edit "second"
        field = screen.query_one("#queue-edit", Input)
        await wait_until(pilot, lambda: field.has_focus)
        field.value = ""
        await type_text(pilot, "second, edited")
        await pilot.press("enter")
        await wait_until(pilot, lambda: ("second, edited", "follow_up") in _queued(shell))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, QueueScreen))
        assert app.focused is app.editor and app.is_live  # the run went on all along
        assert _queued(shell) == [("third", "steer"), ("second, edited", "follow_up")]
        gate.release.set()
        await wait_until(pilot, lambda: app.is_settled and stream.calls == 3)
        assert stream.user_texts(1) == ["go", "third"]
        assert stream.user_texts(2) == ["go", "third", "second, edited"]


async def test_an_item_delivered_while_the_view_is_open_disappears(tmp_path: Path) -> None:
    gate = GateTool()
    stream = ScriptedStream(reply(tool_call("c1", "bash", {"command": "x"})), reply(text("ok")))
    shell = make_shell(tmp_path, stream, tools=[gate])
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await gate.started.wait()
        await type_text(pilot, "steer me")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(shell.queued()) == 1)
        await pilot.press("alt+q")
        await wait_until(pilot, lambda: isinstance(app.screen, QueueScreen))
        await pilot.press("e")  # editing while the steer is delivered
        gate.release.set()
        await wait_until(pilot, lambda: app.is_settled)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QueueScreen) and screen.items == [] and screen.editing is None
        await pilot.press("d", "s", "escape")  # nothing to act on: no error
        await wait_until(pilot, lambda: not isinstance(app.screen, QueueScreen))
        assert stream.user_texts(1) == ["go", "steer me"]
