"""User config files (themes, keybindings.json) never crash pi: bad entries become warnings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.tui.keymap import load_user_keymap
from pi_cli.tui.theming import load_themes
from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until

BAD_THEMES = {
    "notcolour": 'dark = true\n[palette]\nprimary = "notacolour"\n[tokens]\n',
    "badtoken": 'dark = true\n[palette]\nprimary = "#ff0000"\n[tokens]\ntool-error-bg = "zzz"\n',
    "subtable": 'dark = true\n[palette]\nprimary = "#ff0000"\n[tokens]\n[tokens.border]\nx = 1\n',
    "intcolour": "dark = true\n[palette]\nprimary = 5\n[tokens]\n",
    "darkstring": 'dark = "no"\n[palette]\nprimary = "#ff0000"\n[tokens]\n',
    "injection": 'dark = true\n[palette]\nprimary = "#ff0000"\n[tokens]\nborder = "red; color: blue"\n',
    "badname": 'dark = true\n[palette]\nprimary = "#ff0000"\n[tokens]\n"x; y" = "red"\n',
}


@pytest.mark.parametrize("name", sorted(BAD_THEMES))
async def test_a_bad_user_theme_is_a_warning_and_cannot_be_selected(
    tmp_path: Path, name: str
) -> None:
    themes_dir = tmp_path / "themes"
    themes_dir.mkdir()
    (themes_dir / f"{name}.toml").write_text(BAD_THEMES[name])
    _, problems = load_themes(themes_dir)
    assert [p.path.stem for p in problems] == [name]
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]), user_theme_dir=themes_dir)
    async with app.run_test(size=SIZE) as pilot:
        assert any(name in w for w in app.startup_warnings)
        await type_text(pilot, f"/theme {name}")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled)
        await pilot.pause()
        assert app.is_running and app.theme == "dark"


def test_a_valid_user_theme_still_loads(tmp_path: Path) -> None:
    (tmp_path / "ok.toml").write_text(
        'dark = false\n[palette]\nprimary = "rgb(1,2,3)"\n[tokens]\nborder = "red"\n'
    )
    themes, problems = load_themes(tmp_path)
    assert (
        problems == [] and themes["ok"].dark is False and themes["ok"].variables["border"] == "red"
    )


@pytest.mark.parametrize(
    ("content", "expected", "ignored"),
    [
        (b"\xff\xfe\x00bad", {}, None),
        (json.dumps({"pi.submit": ["enter", 1]}).encode(), {}, "pi.submit"),
        (json.dumps({"pi.submit": None}).encode(), {}, "pi.submit"),
        (json.dumps({"pi.submit": ""}).encode(), {}, "pi.submit"),
        (json.dumps({"pi.submit": [" "]}).encode(), {}, "pi.submit"),
        (
            json.dumps({"pi.follow_up": "ctrl+enter, f2"}).encode(),
            {"pi.follow_up": "ctrl+enter,f2"},
            None,
        ),
        (json.dumps({"pi.follow_up": [" f2 ", "f3"]}).encode(), {"pi.follow_up": "f2,f3"}, None),
    ],
)
def test_bad_keybindings_json_values_are_ignored_with_a_warning(
    tmp_path: Path, content: bytes, expected: dict[str, str], ignored: str | None
) -> None:
    path = tmp_path / "keybindings.json"
    path.write_bytes(content)
    keymap, warning = load_user_keymap(path)
    assert keymap == expected
    if ignored is not None:
        assert warning and ignored in warning
    elif expected == {}:
        assert warning and str(path) in warning  # unreadable file
    else:
        assert warning is None


async def test_enter_still_sends_after_a_null_submit_binding(tmp_path: Path) -> None:
    path = tmp_path / "keybindings.json"
    path.write_text(json.dumps({"pi.submit": None}))
    keymap, _ = load_user_keymap(path)
    stream = ScriptedStream(reply(text("ok")))
    app = make_app(make_shell(tmp_path, stream, tools=[]), keymap=keymap)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "hi")
        await pilot.press("enter")
        await wait_until(pilot, lambda: stream.calls == 1 and app.is_settled)
