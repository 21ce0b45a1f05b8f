"""Pilot tests: collapse/expand, themes, completion, quitting keys, keymap overrides, footer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.tui.document.tool import ToolBlock
from pi_cli.tui.document.turn import ThinkingBlock
from pi_cli.tui.keymap import DEFAULT_KEYS, key_hints, load_user_keymap
from pi_cli.tui.screens.picker import PickerScreen
from pi_cli.tui.screens.resume import ResumeScreen
from pi_cli.tui.theming import load_themes
from pi_cli.tui.widgets.footer import Status, StatusFooter
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, thinking, tool_call
from tests.tui.helpers import (
    SIZE,
    GateTool,
    blocks_of,
    click_block,
    make_app,
    make_project,
    make_shell,
    seed_tools,
    type_text,
    wait_until,
)
from tests.tui.screen_text import screen_text


def seed_stream() -> ScriptedStream:
    """The seed scenario, scripted (with a thinking block in the last turn)."""
    return ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "ls -la"})),
        reply(tool_call("c2", "read", {"path": "package.json"})),
        reply(tool_call("c3", "read", {"path": "hello.mjs"})),
        reply(thinking("The entry file prints a greeting."), text("A tiny Node.js project.")),
    )


async def test_ctrl_o_expands_every_tool_block_and_ctrl_t_hides_thinking(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, seed_stream(), tools=seed_tools()))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled)
        blocks = blocks_of(app, ToolBlock)
        (thinking_block,) = blocks_of(app, ThinkingBlock)
        assert len(blocks) == 3 and not any(b.expanded for b in blocks)
        assert "The entry file prints a greeting." in screen_text(app)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert all(b.expanded for b in blocks)
        assert app.transcript.tools_expanded
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert not any(b.expanded for b in blocks)
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert thinking_block.hidden and app.transcript.thinking_hidden
        screen = screen_text(app)
        assert "Thinking" in screen and "The entry file prints a greeting." not in screen
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert "The entry file prints a greeting." in screen_text(app)


async def test_turn_panels_collapse_and_expand(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, seed_stream(), tools=seed_tools()))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled)
        panel = app.transcript.turns[0]
        assert not panel.collapsed and "$ ls -la" in screen_text(app)
        await click_block(pilot, panel)
        assert panel.collapsed
        assert "▶ Turn 1" in screen_text(app) and "$ ls -la" not in screen_text(app)
        await click_block(pilot, panel)
        assert not panel.collapsed and "$ ls -la" in screen_text(app)


async def test_theme_command_switches_theme_and_css_variables(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    themes, _ = load_themes()
    async with app.run_test(size=SIZE) as pilot:
        assert app.theme == "dark"
        assert app.get_css_variables()["tool-error-bg"] == themes["dark"].variables["tool-error-bg"]
        await type_text(pilot, "/theme light")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.theme == "light")
        assert (
            app.get_css_variables()["tool-error-bg"] == themes["light"].variables["tool-error-bg"]
        )
        # Without an argument /theme opens the picker.
        await type_text(pilot, "/theme")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        await type_text(pilot, "dark")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.theme == "dark")


async def test_user_theme_file_is_loaded(tmp_path: Path, pi_home: Path) -> None:
    (pi_home / "themes").mkdir()
    (pi_home / "themes" / "mine.toml").write_text(
        'dark = true\n[palette]\nprimary = "#ff0000"\n[tokens]\ntool-error-bg = "#123456"\n'
    )
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]), theme="mine")
    async with app.run_test(size=SIZE):
        assert app.theme == "mine"
        variables = app.get_css_variables()
        assert variables["tool-error-bg"] == "#123456"
        assert "diff-add" in variables  # inherited from the built-in dark theme


async def test_at_completes_project_files_fuzzily(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    app = make_app(make_shell(project, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "look at @hlm")
        await pilot.pause()
        assert app.menu.is_open and app.menu.items[0].label == "hello.mjs"
        await pilot.press("enter")  # Enter accepts the completion, it does not send
        assert app.editor.text == "look at @hello.mjs "
        assert app.transcript.turns == []


async def test_slash_menu_lists_commands_and_escape_closes_it(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash")
        await pilot.pause()
        labels = [c.label for c in app.menu.items]
        assert "/model" in labels and "/resume" in labels and "/theme" in labels
        await pilot.press("down")
        assert app.menu.highlighted == 1
        await pilot.press("escape")
        assert not app.menu.is_open and app.editor.text == "/"


async def test_ctrl_c_clears_then_quits_and_ctrl_d_quits_on_empty(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "draft")
        await pilot.press("ctrl+d")  # not empty: nothing happens
        assert app.is_running and app.editor.text == "draft"
        await pilot.press("ctrl+c")
        assert app.editor.text == "" and app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.return_value == 0
    app2 = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app2.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert app2.return_value == 0


async def test_keybindings_json_remaps_follow_up(tmp_path: Path, pi_home: Path) -> None:
    (pi_home / "keybindings.json").write_text(json.dumps({"pi.follow_up": "f2", "nope": "x"}))
    keymap, warning = load_user_keymap()
    assert keymap == {"pi.follow_up": "f2"} and warning and "nope" in warning
    gate = GateTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "x"})), reply(text("a")), reply(text("b"))
    )
    app = make_app(make_shell(tmp_path, stream, tools=[gate]), keymap=keymap)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await gate.started.wait()
        await type_text(pilot, "later")
        await pilot.press("f2")
        await pilot.pause()
        assert app.queue_view.follow_ups == ["later"]
        gate.release.set()
        await wait_until(pilot, lambda: app.is_settled)
        assert stream.user_texts(2) == ["go", "later"]


def test_keymap_table_has_unique_ids_and_hints_hide_chords_the_terminal_cannot_send() -> None:
    ids = [spec.id for spec in DEFAULT_KEYS]
    assert len(ids) == len(set(ids))
    legacy = dict((meaning, keys) for keys, meaning in key_hints({}, extended=False))
    assert legacy["queue a follow-up"] == "Alt+Enter / Tab (live)"
    assert legacy["newline"] == "Ctrl+J"
    kitty = dict((meaning, keys) for keys, meaning in key_hints({}, extended=True))
    assert kitty["queue a follow-up"].startswith("Ctrl+Enter / Alt+Enter")
    assert kitty["newline"] == "Shift+Enter / Ctrl+J"
    # Every scope's keys are unique within the scope (but Up/Down serve menu and history).
    from collections import Counter

    from pi_cli.tui.keymap import SCOPES

    assert {spec.scope for spec in DEFAULT_KEYS} <= set(SCOPES)
    for scope in SCOPES:
        keys = Counter(
            k for spec in DEFAULT_KEYS if spec.scope == scope for k in spec.keys.split(",")
        )
        assert {k for k, n in keys.items() if n > 1} <= {"up", "down", "ctrl+d"}, scope
    owners = [spec.id for spec in DEFAULT_KEYS if "shift+tab" in spec.keys.split(",")]
    assert owners == ["pi.cycle_mode"]  # Claude Code's habit: the permission mode


async def test_footer_labels_its_fields_and_colours_the_context_use(tmp_path: Path) -> None:
    from pi_cli.tui.widgets.footer import status_items

    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE):
        footer = app.query_one(StatusFooter)
        line = footer.lines(160)[1].plain  # wide enough for every field
        assert "~/project" in line and "session test-session" in line and "mode auto" in line
        assert "test/scripted" in line and "↑0 ↓0" in line and "cache –" in line
        assert "$0.000" in line and "ctx 0%/128k" in line
        from pi_cli.tui.widgets.footer import cache_text

        # The cache hit rate: cached input over all the input the model saw.
        cached = Status("~/p", "s", "m", "off", input=200, cache_read=1600, cache_write=200)
        assert cache_text(cached) == "cache 80% hit"
        assert cache_text(Status("~/p", "s", "m", "off", input=500)) == "cache 0% hit"
        narrow = footer.lines(70)[1].plain  # the least important fields gave way
        assert "cache" not in narrow and "test/scripted" in narrow and "ctx 0%/128k" in narrow
        for used, style in [(50, "$footer-text"), (75, "$ctx-warn"), (95, "$ctx-danger")]:
            status = Status("~/p", "s", "m", "off", context_tokens=used, context_window=100)
            context = status_items(status)[1][-1]
            assert context.text == f"ctx {used}%/100" and context.style == style


async def test_model_and_resume_commands_open_pickers(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        for command, screen in (("/model", PickerScreen), ("/resume", ResumeScreen)):
            await type_text(pilot, command)
            await pilot.press("enter")
            await wait_until(pilot, lambda: isinstance(app.screen, screen))  # noqa: B023
            await pilot.press("escape")
            await wait_until(pilot, lambda: not isinstance(app.screen, screen))  # noqa: B023
        assert app.shell.model_id == "test/scripted"


async def test_tree_command_opens_the_tree_and_navigating_restores_the_prompt(
    tmp_path: Path,
) -> None:
    stream = ScriptedStream(reply(text("first answer")), reply(text("second answer")))
    shell = make_shell(tmp_path, stream, tools=[])
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        for prompt in ("first question", "second question"):
            await type_text(pilot, prompt)
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.is_settled and stream.calls >= 1)
        await wait_until(pilot, lambda: len(shell.messages) == 4)
        await type_text(pilot, "/tree")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        rows = [label for _, label in app.screen.items]
        assert any("first question" in row for row in rows) and any("●" in row for row in rows)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, PickerScreen))
        second = next(e for e in shell.tree_entries() if "second question" in e.preview)
        from pi_cli.tui.controllers.pick_commands import navigate_tree

        navigate_tree(app, second.id)
        await pilot.pause()
        assert app.editor.text == "second question"
        assert [m.role for m in shell.messages] == ["user", "assistant"]


async def test_the_model_picker_lists_configured_models_first_and_says_no_match(
    tmp_path: Path, monkeypatch: object
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")  # type: ignore[attr-defined]
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/model")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        screen = app.screen
        await wait_until(pilot, lambda: not screen.listing, timeout=20)
        values = [value for value, _ in screen.items]
        labels = [label for _, label in screen.items]
        assert values[0] == "" and labels[0].startswith("Configured here")
        assert values[1] == "test/scripted" and labels[1].startswith("✓ test/scripted")
        other = values.index("", 1)  # the heading of the models that need a key
        assert all(v.startswith(("test/", "anthropic/")) for v in values[1:other])
        assert other > 2 and not any(v.startswith("/") for v in values)
        await type_text(pilot, "zzzz-no-such-model")
        await pilot.pause()
        status = str(screen.query_one("#picker-status").render())
        assert status == "no match: Enter uses “zzzz-no-such-model” as typed"
        await pilot.press("escape")


async def test_the_theme_picker_marks_the_current_theme_and_previews(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/theme")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        assert ("dark", "✓ dark") in app.screen.items and ("light", "  light") in app.screen.items
        await pilot.press("down")  # highlight light: previewed at once
        await wait_until(pilot, lambda: app.theme == "light")
        await pilot.press("escape")  # cancelled: back to the theme it had
        await wait_until(pilot, lambda: not isinstance(app.screen, PickerScreen))
        assert app.theme == "dark"
        picker_box = None
        await type_text(pilot, "/theme")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker_box = app.screen.query_one("#picker-box")
        assert picker_box.size.height < SIZE[1] // 2  # two themes: a small box, not full height
        await pilot.press("down", "enter")
        await wait_until(
            pilot, lambda: app.theme == "light" and not isinstance(app.screen, PickerScreen)
        )


async def test_toasts_do_not_cover_the_editor_or_the_footer(tmp_path: Path) -> None:
    from textual.widgets._toast import Toast

    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await type_text(pilot, "a line I am typing")
        for n in range(3):
            app.notify(f"notice number {n} with enough words to wrap", timeout=60)
        await wait_until(pilot, lambda: len(app.screen.query(Toast)) == 3)
        await pilot.pause()
        editor, footer = app.editor.region, app.query_one(StatusFooter).region
        for toast in app.query(Toast):
            assert not toast.region.overlaps(editor) and not toast.region.overlaps(footer)
        assert "a line I am typing" in screen_text(app)
        assert "notice number 2" in screen_text(app)


async def test_the_typescript_pis_theme_is_a_fallback(
    tmp_path: Path, pi_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pi-ts's own light.json (tests/tui/fixtures/pi_ts_themes, MIT) from ~/.pi/agent/themes:
    under another name it is a theme of pi's, drawn in its colours; as "light" pi's own wins."""
    fixture = Path(__file__).parent / "fixtures" / "pi_ts_themes" / "light.json"
    agent = tmp_path / "pi-ts-agent"
    (agent / "themes").mkdir(parents=True)
    data = json.loads(fixture.read_text())
    (agent / "themes" / "light.json").write_text(json.dumps(data))
    (agent / "themes" / "broken.json").write_text("{not json")
    data["name"] = "ts-light"
    (agent / "themes" / "ts-light.json").write_text(json.dumps(data))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    monkeypatch.delenv("PI_IGNORE_PI_TS_HOME", raising=False)
    themes, problems = load_themes()
    assert themes["light"].primary != data["vars"]["teal"]  # pi's own light, not pi-ts's
    ts = themes["ts-light"]
    assert not ts.dark and ts.variables["tool-error-bg"].lower() == "#f0e8e8"
    assert "diff-add-bg" in ts.variables  # what pi-ts has no role for: pi's light theme's
    assert [p.path.name for p in problems] == ["broken.json"]
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]), theme="ts-light")
    async with app.run_test(size=SIZE):
        assert app.theme == "ts-light"
        assert app.get_css_variables()["tool-error-bg"].lower() == "#f0e8e8"
