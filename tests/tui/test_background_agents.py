"""Background sub-agents in the TUI: the footer counts them, ``/agents`` opens a picker, a
child's thread opens live (a message typed there reaches the child), Ctrl+X stops it, Esc comes
back — all drawn, on the fake provider (real HTTP)."""

from __future__ import annotations

from pathlib import Path

from pi_cli.tui.screens.agent_thread import AgentThreadScreen
from pi_cli.tui.screens.picker import PickerScreen
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn
from tests.shell.agent_tools.test_background import bash, bg_task, shell_for, wait_file
from tests.tui.helpers import SIZE, make_app, type_text, wait_until
from tests.tui.screen_text import screen_text


async def test_footer_picker_thread_message_and_stop(tmp_path: Path) -> None:
    with FakeProviderServer() as server:
        server.add(
            Turn(tool_calls=[bg_task("t1", "CHILD-A: wait for go", "waiter")]),
            Turn(text="Started the waiter."),
            Turn(text="Noted: the waiter was stopped."),
        )
        server.routes["CHILD-A"] = [Turn(tool_calls=[bash("c1", wait_file("go"))])]
        shell = shell_for(tmp_path, server, tools=["bash", "task"], persist_session=False)
        app = make_app(shell)
        background = shell.agent_tools.background
        try:
            async with app.run_test(size=SIZE) as pilot:
                assert "agent" not in app.footer.text
                await type_text(pilot, "start the waiter")
                await pilot.press("enter")
                await wait_until(
                    pilot, lambda: app.is_settled and "⤷ 1 agent" in app.footer.text, 30
                )
                await wait_until(pilot, lambda: len(server.requests) >= 3, 30)  # its bash call
                await type_text(pilot, "/agents")
                await pilot.press("enter")
                await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
                assert "a1   running     general-purpose: waiter" in screen_text(app)
                await pilot.press("enter")  # the one agent
                await wait_until(
                    pilot,
                    lambda: (
                        isinstance(app.screen, PickerScreen) and app.screen.items[0][0] == "view"
                    ),
                )
                await pilot.press("enter")  # open its thread
                await wait_until(pilot, lambda: isinstance(app.screen, AgentThreadScreen))
                await wait_until(pilot, lambda: "● bash" in screen_text(app))
                drawn = screen_text(app)
                assert "› CHILD-A: wait for go" in drawn
                await type_text(pilot, "hurry up")
                await pilot.press("enter")  # a message for the child
                child = background.get("a1")
                assert child.built is not None
                await wait_until(
                    pilot,
                    lambda: any(
                        "hurry up" in m.text for m in child.built.agent.state.steering_queue
                    ),
                )
                await pilot.press("escape")  # back: the child goes on
                await wait_until(
                    pilot, lambda: not isinstance(app.screen, PickerScreen | AgentThreadScreen)
                )
                assert child.running and "Sent to a1" in screen_text(app)
                await type_text(pilot, "/agents")  # again, and stop it from its thread
                await pilot.press("enter")
                await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
                await pilot.press("enter", "enter")
                await wait_until(pilot, lambda: isinstance(app.screen, AgentThreadScreen))
                await pilot.press("ctrl+x")
                await wait_until(pilot, lambda: child.info.status == "aborted", 30)
                await wait_until(
                    pilot, lambda: app.is_settled and "agent" not in app.footer.text, 30
                )
                await wait_until(
                    pilot, lambda: "Noted: the waiter was stopped." in screen_text(app), 30
                )
                assert "was stopped by the user" in screen_text(app)
        finally:
            await shell.aclose()
