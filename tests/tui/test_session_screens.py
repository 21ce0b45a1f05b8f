"""Pilot tests of the session screens: /rewind, the /tree offer, the resume picker (search,
rename, delete), pi -r, and a stored queue offered back in the editor."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from pi_cli.shell.session.names import session_name
from pi_cli.shell.session.store import SessionStore
from pi_cli.tui.app import PiApp, TuiOptions
from pi_cli.tui.screens.choice import ChoiceScreen
from pi_cli.tui.screens.picker import PickerScreen
from pi_cli.tui.screens.resume import ResumeScreen
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tui.helpers import SIZE, make_app, type_text, wait_until
from tests.tui.screen_text import screen_text

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def shell_in(project: Path, stream: ScriptedStream, **options: object) -> CodingAgent:
    """A shell with the real tools and a session file (checkpoints need the real write tool)."""
    return CodingAgent(
        ShellOptions(cwd=project, stream_fn=stream, tools=["write", "bash"], **options)
    )


async def run_prompt(pilot: object, app: object, prompt: str) -> None:
    await type_text(pilot, prompt)
    await pilot.press("enter")  # type: ignore[attr-defined]
    await wait_until(pilot, lambda: app.is_settled)  # type: ignore[attr-defined]
    await app.shell.wait_idle()  # type: ignore[attr-defined]


@needs_git
async def test_rewind_picker_restores_code_and_conversation(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("v1\n")
    stream = ScriptedStream(
        reply(tool_call("w1", "write", {"path": "app.py", "content": "v2\n"})),
        reply(text("wrote v2")),
        reply(tool_call("w2", "write", {"path": "app.py", "content": "v3\n"})),
        reply(text("wrote v3")),
    )
    app = make_app(shell_in(project, stream))
    async with app.run_test(size=SIZE) as pilot:
        await run_prompt(pilot, app, "make v2")
        await run_prompt(pilot, app, "make v3")
        (project / "app.py").write_text("v3 and my fix\n")  # by hand, after the last run
        await type_text(pilot, "/rewind")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        rows = [label for _, label in app.screen.items]
        assert "2. make v3" in rows[0] and "(1 file +1 -1)" in rows[0] and "1. make v2" in rows[1]
        # ... and drawn: the rows are on the screen, not only in the picker's list.
        await wait_until(pilot, lambda: "Rewind to before which prompt?" in screen_text(app))
        drawn = screen_text(app)
        assert "2. make v3" in drawn and "(1 file +1 -1)" in drawn and "1. make v2" in drawn
        await pilot.press("down", "enter")  # the older prompt
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        assert "restore: app.py  [changed by hand]" in "\n".join(app.screen.body)
        assert [v for v, _ in app.screen.options] == ["both", "code", "conversation", "cancel"]
        await wait_until(pilot, lambda: "Rewind to: make v2" in screen_text(app))
        drawn = screen_text(app)
        assert "restore: app.py  [changed by hand]" in drawn, drawn
        assert all(label in drawn for _, label in app.screen.options), drawn
        assert "Back to the prompts" in drawn
        await pilot.press("enter")  # code and conversation
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, ChoiceScreen) and "by hand" in app.screen.title_text,
        )
        assert "app.py" in app.screen.body
        # Esc goes back one question at a time: to what to restore, then to the prompts.
        await pilot.press("escape")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, ChoiceScreen) and "Rewind to" in app.screen.title_text,
        )
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert app.screen.current == app.screen.items[1][0]  # at the prompt chosen before
        assert (project / "app.py").read_text() == "v3 and my fix\n"  # nothing done meanwhile
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await pilot.press("enter")  # code and conversation
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, ChoiceScreen) and "by hand" in app.screen.title_text,
        )
        await pilot.press("enter")  # overwrite them too
        await wait_until(pilot, lambda: (project / "app.py").read_text() == "v1\n")
        await wait_until(pilot, lambda: app.editor.text == "make v2")
        assert app.shell.messages == ()


@needs_git
async def test_tree_offers_to_restore_the_code_of_the_chosen_entry(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    stream = ScriptedStream(
        reply(text("nothing yet")),
        reply(tool_call("w1", "write", {"path": "new.txt", "content": "made\n"})),
        reply(text("made it")),
    )
    app = make_app(shell_in(project, stream))
    async with app.run_test(size=SIZE) as pilot:
        await run_prompt(pilot, app, "hello")
        await run_prompt(pilot, app, "make a file")
        assert (project / "new.txt").exists()
        await type_text(pilot, "/tree")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        first_answer = next(
            i for i, (_, label) in enumerate(app.screen.shown) if "nothing yet" in label
        )
        current = next(i for i, (v, _) in enumerate(app.screen.shown) if v == app.screen.current)
        for _ in range(current - first_answer):
            await pilot.press("up")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        values = [v for v, _ in app.screen.options]
        assert values[:2] == ["plain", "code"] and "summary" in values
        assert any("remove (created since): new.txt" in line for line in app.screen.body)
        await wait_until(pilot, lambda: "Continue from this entry" in screen_text(app))
        drawn = screen_text(app)
        assert "remove (created since): new.txt" in drawn, drawn
        assert all(label in drawn for _, label in app.screen.options), drawn
        await wait_until(pilot, lambda: app.focused is app.screen.query_one("OptionList"))
        await pilot.press("escape")  # back to the tree, at the entry chosen
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await wait_until(pilot, lambda: app.screen.query_one("OptionList").highlighted is not None)
        assert "nothing yet" in dict(app.screen.items)[app.screen.current]
        assert (project / "new.txt").exists()
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        await wait_until(pilot, lambda: app.focused is app.screen.query_one("OptionList"))
        await pilot.press("down", "enter")  # continue and restore its code
        await wait_until(pilot, lambda: not (project / "new.txt").exists())
        # The code is restored before the conversation moves: wait for both.
        await wait_until(
            pilot, lambda: [m.text for m in app.shell.messages] == ["hello", "nothing yet"]
        )


async def test_resume_picker_searches_renames_and_deletes(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    paths = []
    for prompt in ("fix the login bug", "write the release notes", "refactor the parser"):
        shell = CodingAgent(ShellOptions(cwd=project, stream_fn=ScriptedStream(reply(text("ok")))))
        await shell.submit(prompt)
        await shell.aclose()
        paths.append(shell.session.path)
    current = CodingAgent(
        ShellOptions(cwd=project, stream_fn=ScriptedStream(), session=str(paths[2]))
    )
    app = make_app(current)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/resume")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ResumeScreen) and app.screen.loaded)
        screen = app.screen
        assert len(screen.shown) == 3
        await type_text(pilot, "release")
        assert [s.path for s in screen.shown] == [paths[1]]
        await pilot.press("ctrl+r")
        assert (
            screen.mode == "rename" and screen.query_one("Input").value == "write the release notes"
        )
        screen.query_one("Input").value = ""
        await type_text(pilot, "notes for 1.0")
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.mode == "search" and screen.loaded)
        assert session_name(SessionStore.open(paths[1])) == "notes for 1.0"

        await type_text(pilot, "login")
        assert [s.path for s in screen.shown] == [paths[0]]
        await pilot.press("ctrl+d")
        assert screen.mode == "delete" and paths[0].exists()
        await pilot.press("ctrl+d")
        await wait_until(pilot, lambda: not paths[0].exists())

        await type_text(pilot, "parser")  # the session in use: never deleted
        await pilot.press("ctrl+d")
        assert screen.mode == "search" and paths[2].exists()
        assert "cannot be deleted" in str(screen.query_one("#resume-hint").render())

        screen.query_one("Input").value = ""
        await type_text(pilot, "1.0")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.shell.session.path == paths[1])


async def test_pi_r_opens_the_resume_picker_and_a_stored_queue_comes_back(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    first = CodingAgent(ShellOptions(cwd=project, stream_fn=ScriptedStream(reply(text("ok")))))
    await first.submit("hello")
    await first.aclose()
    path = first.session.path
    assert path is not None
    with path.open("a") as handle:  # as a pi killed mid-run leaves it
        entry = {
            "type": "queue",
            "id": "abcd1234",
            "parentId": None,
            "timestamp": "t",
            "items": [{"id": "q1", "text": "still queued", "kind": "steer"}],
            "reason": "queued",
        }
        handle.write(json.dumps(entry, separators=(",", ":")) + "\n")
    options = ShellOptions(
        cwd=project, stream_fn=ScriptedStream(), continue_session=True, offer_stored_queue=True
    )
    # As run_tui starts it: the shell is built after the first frame, then /resume is sent.
    app = PiApp(
        None,
        TuiOptions(startup_inputs=["/resume"], cursor_blink=False, persist_theme=False),
        shell_factory=lambda: CodingAgent(options),
    )
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ResumeScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, ResumeScreen))
        assert app.editor.text == "still queued"
