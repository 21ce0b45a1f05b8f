"""Keys: Ctrl+C aborts a live run, the editor always keeps the focus, ``?`` / F1 / ``/keys`` list
every binding, modal scopes never leak, completion never eats Enter nor duplicates text."""

from __future__ import annotations

from pathlib import Path

from pi_cli.tui.controllers.key_actions import action_names
from pi_cli.tui.document.tool import ToolBlock
from pi_cli.tui.keymap import DEFAULT_KEYS, SCOPES
from pi_cli.tui.screens.keys_screen import KeysScreen, keys_content
from pi_cli.tui.screens.picker import PickerScreen
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tui.helpers import (
    SIZE,
    GateTool,
    blocks_of,
    click_block,
    make_app,
    make_shell,
    seed_tools,
    type_text,
    wait_until,
)
from tests.tui.screen_text import screen_text
from tests.tui.test_app_ui import seed_stream


def test_every_key_action_of_the_table_has_a_handler() -> None:
    import re

    names = action_names()
    for spec in DEFAULT_KEYS:
        match = re.match(r"key\('([a-z_]+)'", spec.action)
        if match:
            assert match.group(1) in names, spec.id
    assert {spec.scope for spec in DEFAULT_KEYS} <= set(SCOPES)


async def test_ctrl_c_aborts_a_live_run_and_only_quits_when_idle_twice(tmp_path: Path) -> None:
    gate = GateTool()
    stream = ScriptedStream(reply(tool_call("c1", "bash", {"command": "sleep"})), reply(text("x")))
    app = make_app(make_shell(tmp_path, stream, tools=[gate]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await gate.started.wait()
        await pilot.press("ctrl+c")  # live: abort, like Esc
        await wait_until(pilot, lambda: app.is_settled)
        assert app.is_running and stream.calls == 1 and not gate.release.is_set()
        assert "Aborted" in app.footer.text and "Aborted." in screen_text(app)
        await pilot.press("ctrl+c")  # idle: clear and arm
        await pilot.pause()
        assert app.is_running and "Press Ctrl+C again to quit" in app.footer.text
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.return_value == 0


async def test_the_editor_keeps_the_focus_and_typing_always_reaches_it(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, seed_stream(), tools=seed_tools()))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled)
        for key in ("shift+tab", "shift+tab", "tab"):
            await pilot.press(key)
            assert app.focused is app.editor
        assert not app.transcript.view.can_focus and not app.transcript.can_focus
        panel = app.transcript.turns[0]
        await click_block(pilot, panel)  # clicking toggles, focus stays
        assert panel.collapsed and app.focused is app.editor
        await type_text(pilot, "hello")
        assert app.editor.text == "hello"


async def test_question_mark_f1_and_keys_list_every_binding(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")  # empty editor: the list
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        await pilot.press("ctrl+o")  # a main-screen key: not active in the list
        assert not app.transcript.tools_expanded
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, KeysScreen))
        await type_text(pilot, "why?")  # with text, ? is just typed
        assert app.editor.text == "why?" and not isinstance(app.screen, KeysScreen)
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, KeysScreen))
        app.editor.set_text("")
        await type_text(pilot, "/keys")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
    listed = keys_content({"pi.follow_up": "f2"}, [("/help", "List commands")]).plain
    for spec in DEFAULT_KEYS:
        assert spec.id in listed and spec.description in listed
    assert "F2" in listed and "/help" in listed


async def test_picker_keys_stay_in_the_picker_and_main_keys_stay_out(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, seed_stream(), tools=seed_tools()))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled)
        await type_text(pilot, "/theme")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        before = app.transcript.scroll_y
        for key in ("ctrl+o", "pageup", "ctrl+up", "alt+o"):
            await pilot.press(key)
        assert not any(b.expanded for b in blocks_of(app, ToolBlock))
        assert app.transcript.scroll_y == before and app.cursor.item is None
        await pilot.press("escape")  # the picker's Esc closes it and never aborts anything
        await wait_until(pilot, lambda: not isinstance(app.screen, PickerScreen))
        assert app.focused is app.editor


async def test_alt_t_cycles_the_thinking_level(tmp_path: Path) -> None:
    shell = make_shell(tmp_path, ScriptedStream(), tools=[])
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        assert shell.thinking == "off"
        await pilot.press("alt+t")
        await wait_until(pilot, lambda: shell.thinking == "low")
        await pilot.press("alt+t")
        await wait_until(pilot, lambda: shell.thinking == "medium")
        await pilot.pause()
        assert "thinking medium" in app.footer.text


async def test_typing_a_command_and_enter_quickly_runs_it_without_mangling(tmp_path: Path) -> None:
    for typed in ("/quit", "/qu"):
        app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
        async with app.run_test(size=SIZE) as pilot:
            # One press call: every key is queued before the first is handled, like tmux.
            await pilot.press(*typed, "enter")
            await pilot.pause()
            assert app.return_value == 0, (typed, app.editor.text)


async def test_enter_with_a_command_prefix_sends_the_completed_command(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"/sess", "enter")
        await wait_until(pilot, lambda: "Session:" in screen_text(app))
        assert app.editor.text == ""
        await pilot.press("slash", "enter")  # a bare "/" never picks a command for you
        await pilot.pause()
        assert "/compact" not in screen_text(app).split("Session:")[-1]


async def test_home_and_end_scroll_only_an_empty_editor(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        for i in range(60):
            app.transcript.notice(f"line {i}")
        await pilot.pause()
        await pilot.press("home")
        await pilot.pause()
        assert app.transcript.scroll_y == 0
        await pilot.press("end")
        await pilot.pause()
        assert app.scroller.at_bottom
        await type_text(pilot, "abc")
        await pilot.press("home")
        await pilot.pause()
        assert app.editor.cursor_location == (0, 0) and app.scroller.at_bottom


async def test_remapping_one_binding_of_a_shared_key_keeps_the_others(
    tmp_path: Path, pi_home: Path
) -> None:
    import json

    from pi_cli.tui.keymap import load_user_keymap

    (pi_home / "keybindings.json").write_text(json.dumps({"pi.history_prev": "ctrl+p"}))
    keymap, warning = load_user_keymap()
    assert warning is None and keymap["pi.history_prev"] == "ctrl+p"
    assert keymap["pi.cursor_up"] == "up" and keymap["pi.complete_prev"] == "up"
    stream = ScriptedStream(reply(text("a")))
    app = make_app(make_shell(tmp_path, stream, tools=[]), keymap=keymap)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "first")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled)
        app.editor.set_text("one\ntwo")
        await pilot.press("up")  # still moves the cursor
        assert app.editor.cursor_location[0] == 0 and app.editor.text == "one\ntwo"
        await pilot.press("ctrl+p")  # history on its new key
        assert app.editor.text == "first"


async def test_ctrl_c_copies_a_selection_and_says_so(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "copy me")
        app.editor.select_all()
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.clipboard == "copy me" and app.editor.text == "copy me"  # not cleared
        assert "Copied 7 characters." in app.footer.text
