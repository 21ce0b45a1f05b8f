"""``/diff`` in the TUI, tested by what is drawn: the session's files, the coloured patch, the
per-prompt view, and a file reverted with ``r``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from pi_cli.tui.screens.diff import DiffScreen
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tui.helpers import SIZE, make_app, type_text, wait_until
from tests.tui.screen_text import colour_of, screen_text

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


async def _run(pilot: object, app: object, prompt: str) -> None:
    await type_text(pilot, prompt)
    await pilot.press("enter")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: app.is_settled)  # type: ignore[attr-defined]
    await app.shell.wait_idle()  # type: ignore[attr-defined]


@needs_git
async def test_diff_screen_draws_the_changes_and_reverts_a_file(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("def main():\n    return 1\n")
    stream = ScriptedStream(
        reply(tool_call("w1", "write", {"path": "app.py", "content": "def main():\n    return 2\n"})),
        reply(text("changed")),
        reply(tool_call("b1", "bash", {"command": "echo hello > notes.txt"})),
        reply(text("noted")),
    )  # fmt: skip
    shell = CodingAgent(
        ShellOptions(cwd=project, stream_fn=stream, tools=["write", "bash"], permission_mode="bypassPermissions")
    )  # fmt: skip
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await _run(pilot, app, "return two")
        await _run(pilot, app, "take notes")
        await type_text(pilot, "/diff")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DiffScreen))
        await pilot.pause()
        drawn = screen_text(app)
        assert "Changes of this session, in total: 2 file(s)" in drawn
        assert "app.py  +1 -1" in drawn and "notes.txt  +1 -0" in drawn
        assert "+    return 2" in drawn and "-    return 1" in drawn
        added, removed = colour_of(app, "+    return 2", "+"), colour_of(app, "-    return 1", "-")
        assert added and removed and added != removed  # green and red from the theme
        await pilot.press("down")
        await pilot.pause()
        assert "+hello" in screen_text(app)
        await pilot.press("t")  # per prompt
        await pilot.pause()
        drawn = screen_text(app)
        assert "per prompt" in drawn and "prompt 1: return two" in drawn
        assert "prompt 2: take notes" in drawn
        await pilot.press("t")
        await pilot.pause()
        await pilot.press("r")  # revert app.py (highlighted again after the switch back)
        await wait_until(pilot, lambda: "in total: 1 file(s)" in screen_text(app))
        assert (project / "app.py").read_text() == "def main():\n    return 1\n"
        assert (project / "notes.txt").exists()
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, DiffScreen))
