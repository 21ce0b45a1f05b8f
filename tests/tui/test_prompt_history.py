"""Prompt history: shared with the plain REPL (prompt_toolkit's FileHistory format, both ways),
Up/Down on the first/last line, the draft kept, Ctrl+R search; hostile files never crash."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.history import FileHistory

from pi_cli.tui.prompt_history import PromptHistory, append_history, load_history
from pi_cli.tui.screens.picker import PickerScreen
from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until


def test_the_file_format_is_prompt_toolkits_in_both_directions(tmp_path: Path) -> None:
    path = tmp_path / "history"
    plain = FileHistory(str(path))
    plain.store_string("from the plain repl")
    plain.store_string("two\nlines")
    assert append_history(path, "from the tui\n  indented") is None
    assert load_history(path) == ["from the plain repl", "two\nlines", "from the tui\n  indented"]
    again = list(FileHistory(str(path)).load_history_strings())  # newest first
    assert again == ["from the tui\n  indented", "two\nlines", "from the plain repl"]


def test_hostile_history_files_are_read_without_crashing(tmp_path: Path) -> None:
    path = tmp_path / "history"
    path.write_bytes(b"\xff\xfe garbage\n+ok\n\x00\x01\n+\xc3\x28 broken utf8\n+last")
    entries = load_history(path)
    assert entries[0] == "ok" and entries[-1].endswith("last") and len(entries) == 2
    assert load_history(tmp_path / "missing") == []
    (tmp_path / "dir").mkdir()
    assert load_history(tmp_path / "dir") == []
    assert append_history(tmp_path / "dir", "x") is not None  # reported, not raised
    assert append_history(path, "   ") is None and load_history(path) == entries


def test_browsing_keeps_the_draft() -> None:
    history = PromptHistory(None)
    for entry in ("one", "two", "two", "three"):
        history.add(entry)
    assert history.entries == ["one", "two", "three"]
    assert history.step(1, "draft") is None  # not browsing: Down does nothing
    assert history.step(-1, "draft") == "three"
    assert history.step(-1, "three") == "two"
    assert history.step(-1, "two") == "one"
    assert history.step(-1, "one") is None  # the oldest
    assert history.step(1, "one") == "two"
    assert history.step(1, "two") == "three"
    assert history.step(1, "three") == "draft" and not history.browsing
    assert history.newest_first() == ["three", "two", "one"]


async def test_up_and_down_recall_prompts_shared_with_the_plain_repl(
    tmp_path: Path, pi_home: Path
) -> None:
    FileHistory(str(pi_home / "history")).store_string("typed in pi --plain")
    stream = ScriptedStream(reply(text("a")), reply(text("b")))
    app = make_app(make_shell(tmp_path, stream, tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "first prompt")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled and stream.calls == 1)
        await type_text(pilot, "my draft")
        await pilot.press("up")
        assert app.editor.text == "first prompt"
        await pilot.press("up")
        assert app.editor.text == "typed in pi --plain"
        await pilot.press("down", "down")
        assert app.editor.text == "my draft"
        app.editor.set_text("line one\nline two")
        app.editor.move_cursor((1, 3))
        await pilot.press("up")  # not on the first line: the cursor moves, no recall
        assert app.editor.text == "line one\nline two" and app.editor.cursor_location[0] == 0
        await pilot.press("up")  # now on the first line: recall
        assert app.editor.text == "first prompt"
    assert load_history(pi_home / "history")[-1] == "first prompt"
    assert list(FileHistory(str(pi_home / "history")).load_history_strings())[0] == "first prompt"


async def test_ctrl_r_searches_the_history(tmp_path: Path, pi_home: Path) -> None:
    for entry in ("deploy the staging app", "run the tests", "deploy production"):
        append_history(pi_home / "history", entry)
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert [value for value, _ in app.screen.shown][:3] == [
            "deploy production",
            "run the tests",
            "deploy the staging app",
        ]
        await type_text(pilot, "staging")
        await pilot.press("enter")
        await wait_until(pilot, lambda: not isinstance(app.screen, PickerScreen))
        assert app.editor.text == "deploy the staging app"
