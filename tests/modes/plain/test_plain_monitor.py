"""A monitor in the plain REPL: its delivery printed as a ``◉`` line with its lines when the
model receives it (a run woken while idle), and the toolbar counting it."""

from __future__ import annotations

from pathlib import Path

from pi_cli.shell.config.settings import Settings
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.modes.plain.harness import ENTER, plain_repl


async def test_a_delivery_wakes_a_run_and_is_printed(tmp_path: Path) -> None:
    command = "while [ ! -f go ]; do sleep 0.05; done; echo ERROR: disk full; echo fine; sleep 30"
    stream = ScriptedStream(
        reply(
            tool_call(
                "m1", "monitor", {"command": command, "description": "log", "pattern": "ERROR"}
            )
        ),
        reply(text("Watching the log.")),
        reply(text("The disk is full.")),
    )
    settings = Settings.model_validate({"sandbox": {"mode": "off"}})
    async with plain_repl(
        tmp_path,
        stream,
        "builtin",
        approvals="interactive",
        settings=settings,
        permission_mode="bypassPermissions",
    ) as h:
        h.send("watch the log" + ENTER)
        await h.until(lambda: "Watching the log." in h.output, what="the first answer")
        await h.until(lambda: "◉ 1 monitor (/monitors)" in h.repl._toolbar(), what="the count")
        (tmp_path / "project" / "go").touch()
        await h.until(lambda: "The disk is full." in h.output, what="the woken run")
        assert "◉ bash_1 · log] 1 new line\nERROR: disk full\n" in h.output
        assert "fine" not in h.output.split("◉ bash_1")[1]
        await h.idle()
        assert await h.quit() == 0
