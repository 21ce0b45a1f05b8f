"""Memory in the TUI, by what is drawn: ``# note`` asks in a dialog and says where it went;
``/memory project`` opens the file in ``$VISUAL`` and the next request carries the edit."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until
from tests.tui.screen_text import screen_text


async def test_a_note_is_asked_for_in_a_dialog_and_saved(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("ok")))
    app = make_app(make_shell(tmp_path, stream, tools=[], approvals="interactive"))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "# use pnpm, never npm")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Save this note to which memory file?" in screen_text(app))
        drawn = screen_text(app)
        assert "Project memory" in drawn and "User memory" in drawn
        assert "- use pnpm, never npm" in drawn
        await pilot.press("enter")  # the first: project memory
        await wait_until(pilot, lambda: "Saved to project memory" in screen_text(app))
        assert (tmp_path / "AGENTS.md").read_text() == "- use pnpm, never npm\n"
        assert stream.calls == 0


async def test_slash_memory_opens_the_file_in_the_editor(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "fake_editor.py"
    script.write_text("import sys\nopen(sys.argv[1], 'a').write('Answer in French.\\n')\n")
    monkeypatch.setenv("VISUAL", f"{sys.executable} {script}")
    stream = ScriptedStream(reply(text("d'accord")))
    project = tmp_path / "project"
    project.mkdir()
    app = make_app(make_shell(project, stream, tools=[], approvals="interactive"))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/memory project")
        await pilot.press("enter")
        await wait_until(pilot, lambda: (project / "AGENTS.md").is_file())
        assert (project / "AGENTS.md").read_text() == "Answer in French.\n"
        await wait_until(pilot, lambda: app.is_settled)
        await type_text(pilot, "hello")
        await pilot.press("enter")
        await wait_until(pilot, lambda: stream.calls == 1)
        assert "Answer in French." in stream.contexts[0].system_prompt
