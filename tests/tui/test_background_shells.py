"""Background shells in the TUI: the footer counts the running ones, ``/bashes`` opens a picker
to view a shell's output or stop it (through the same ``/bashes`` command as everywhere)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pi_cli.shell.config.settings import Settings
from pi_cli.tui.screens.picker import PickerScreen
from pi_cli.tui.screens.shell_output import ShellOutputScreen
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tools.sandbox.procs import kill_leftovers, marker, tagged
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until
from tests.tui.screen_text import screen_text


def _app_starting(tmp_path: Path, command: str) -> tuple[Any, Any]:
    """(shell, app) whose model starts ``command`` as a background shell, sandbox off (the auto
    permission mode would ask outside it: nobody answers in these tests)."""
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": command, "background": True})),
        reply(text("Started.")),
    )
    settings = Settings.model_validate({"sandbox": {"mode": "off"}})
    shell = make_shell(tmp_path, stream, settings=settings, permission_mode="bypassPermissions")
    return shell, make_app(shell)


async def _start(pilot: Any, app: Any) -> None:
    await type_text(pilot, "start it")
    await pilot.press("enter")
    await wait_until(pilot, lambda: app.is_settled and "⚙ 1 bg" in app.footer.text)


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

            await choose("enter")  # view its output (live, in its own view)
            await wait_until(pilot, lambda: "server is up" in screen_text(app))
            await pilot.press("escape")  # the view closes; the shell goes on
            await wait_until(pilot, lambda: not isinstance(app.screen, ShellOutputScreen))
            await choose("down", "enter")  # stop it
            await wait_until(pilot, lambda: "Stopped bash_1 and everything it" in screen_text(app))
            await wait_until(pilot, lambda: "⚙" not in app.footer.text)
            assert tagged(tag) == []
    finally:
        await shell.aclose()
        kill_leftovers()


async def test_the_bash_picker_draws_its_rows_and_view_follows_the_output_live(
    tmp_path: Path,
) -> None:
    tag = marker()
    gate = tmp_path / "gate"
    command = (
        f"echo tick-1; while [ ! -e {gate} ]; do sleep 0.05; done; echo tick-2; "
        f"sleep {tag}0 & wait $!"
    )
    shell, app = _app_starting(tmp_path, command)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _start(pilot, app)
            await type_text(pilot, "/bashes")
            await pilot.press("enter")
            # The picker's rows are drawn: the shell, its state and its command.
            await wait_until(pilot, lambda: "Background shells" in screen_text(app))
            row = next(line for line in screen_text(app).splitlines() if "bash_1" in line)
            assert "running" in row and "echo tick-1" in row, row
            await pilot.press("enter")
            await wait_until(pilot, lambda: "View its output, live" in screen_text(app))
            assert "Stop it and everything it started" in screen_text(app)
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, ShellOutputScreen))
            await wait_until(pilot, lambda: "tick-1" in screen_text(app))
            assert "tick-2" not in screen_text(app)
            gate.touch()  # the shell writes more while the view is open: it appears there
            await wait_until(pilot, lambda: "tick-2" in screen_text(app))
            assert isinstance(app.screen, ShellOutputScreen)
            assert "[Esc] Close" in screen_text(app) and "[x] Stop it" in screen_text(app)
            await pilot.press("x")  # stop it from the view
            await wait_until(pilot, lambda: "Stopped bash_1 and everything it" in screen_text(app))
            await wait_until(pilot, lambda: "⚙" not in app.footer.text)
            assert tagged(tag) == []
    finally:
        await shell.aclose()
        kill_leftovers()


async def test_the_live_view_says_when_the_shell_has_exited(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    command = f"echo started; while [ ! -e {gate} ]; do sleep 0.05; done; echo finished; exit 3"
    shell, app = _app_starting(tmp_path, command)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await _start(pilot, app)
            found = shell.sandbox.shells.get("bash_1")
            assert found is not None
            app.push_screen(ShellOutputScreen(found))
            await wait_until(pilot, lambda: "started" in screen_text(app))
            gate.touch()
            # Exited, with the lines still in the pipe at its exit (the view polled on).
            await wait_until(
                pilot, lambda: "exited 3" in (text := screen_text(app)) and "finished" in text
            )
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, ShellOutputScreen))
    finally:
        await shell.aclose()
