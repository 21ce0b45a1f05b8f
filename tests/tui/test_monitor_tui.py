"""Monitors in the TUI: the footer counts them, a delivery is drawn in the transcript (a
``◉`` block with its lines) when the model receives it, the keys are answered while a command
floods its output, and ``/monitors`` lists and stops them."""

from __future__ import annotations

import sys
from pathlib import Path

from pi_cli.shell.config.settings import Settings
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tools.sandbox.procs import kill_leftovers
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until
from tests.tui.screen_text import screen_text

FLOOD = (
    f'{sys.executable} -c "import sys, time\n'
    "for b in range(100):\n"
    "    sys.stdout.write(''.join(f'line {b * 100 + i}\\\\n' for i in range(100)))\n"
    "    sys.stdout.flush()\n"
    "    time.sleep(0.01)\n"
    "print('FLOOD OVER', flush=True)\"; sleep 60"
)


async def test_a_flooding_monitor_is_counted_drawn_and_the_keys_still_answer(
    tmp_path: Path,
) -> None:
    stream = ScriptedStream(
        reply(tool_call("m1", "monitor", {"command": FLOOD, "description": "flood"})),
        reply(text("Watching.")),
        *[reply(text(f"Seen {n}.")) for n in range(40)],
    )
    settings = Settings.model_validate(
        {"sandbox": {"mode": "off"}, "monitor": {"intervalS": 0.5, "maxLines": 5}}
    )
    shell = make_shell(
        tmp_path,
        stream,
        settings=settings,
        permission_mode="bypassPermissions",
        approvals="interactive",
    )
    app = make_app(shell)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await type_text(pilot, "watch it")
            await pilot.press("enter")
            await wait_until(pilot, lambda: "◉ 1 monitor" in app.footer.text)
            await wait_until(pilot, lambda: "◉ bash_1 · flood — 5 new lines (" in screen_text(app))
            drawn = screen_text(app)
            assert "more matching lines dropped" in drawn and "line 0" in drawn
            await type_text(pilot, "keys still answer")  # while the flood goes on
            await wait_until(pilot, lambda: "keys still answer" in screen_text(app))
            await pilot.press("ctrl+u")
            await wait_until(pilot, lambda: app.is_settled)
            await type_text(pilot, "/monitors")
            await pilot.press("enter")
            await wait_until(pilot, lambda: "◉ flood:" in screen_text(app))
            await type_text(pilot, "/monitors stop bash_1")
            await pilot.press("enter")
            await wait_until(pilot, lambda: "◉" not in app.footer.text)
            assert "Stopped monitor bash_1" in screen_text(app)
    finally:
        await shell.aclose()
        kill_leftovers()
