"""Background shells in the TUI: the footer counts the running ones, ``/bashes`` opens a picker
to view a shell's output or stop it (through the same ``/bashes`` command as everywhere)."""

from __future__ import annotations

from pathlib import Path

from pi_cli.shell.config.settings import Settings
from pi_cli.tui.screens.picker import PickerScreen
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tools.sandbox.procs import kill_leftovers, marker, tagged
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until
from tests.tui.screen_text import screen_text


async def test_footer_indicator_and_bashes_picker(tmp_path: Path) -> None:
    tag = marker()
    command = f"echo server is up; exec sleep {tag}1"
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": command, "background": True})),
        reply(text("Started.")),
    )
    settings = Settings.model_validate({"sandbox": {"mode": "off"}})
    # No sandbox here, so the auto permission mode would ask: nobody answers in this test.
    shell = make_shell(tmp_path, stream, settings=settings, permission_mode="bypassPermissions")
    app = make_app(shell)
    try:
        async with app.run_test(size=SIZE) as pilot:
            assert "bg" not in app.footer.text  # nothing running: no indicator
            await type_text(pilot, "start the server")
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.is_settled and "⚙ 1 bg" in app.footer.text)

            async def choose(*keys: str) -> None:
                await type_text(pilot, "/bashes")
                await pilot.press("enter")
                await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
                await pilot.press("enter")  # the one shell
                await wait_until(
                    pilot,
                    lambda: (
                        isinstance(app.screen, PickerScreen) and app.screen.items[0][0] == "view"
                    ),
                )
                await pilot.press(*keys)

            await choose("enter")  # view its output
            await wait_until(pilot, lambda: "server is up" in screen_text(app))
            await choose("down", "enter")  # stop it
            await wait_until(pilot, lambda: "⚙" not in app.footer.text)
            assert "Stopped bash_1 and everything it started." in screen_text(app)
            assert tagged(tag) == []
    finally:
        await shell.aclose()
        kill_leftovers()
