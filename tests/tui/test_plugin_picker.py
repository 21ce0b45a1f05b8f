"""``/plugin`` in the TUI: a picker of the marketplaces' plugins (a real marketplace served from
a local git repository), drawn with their state; choosing one and then "install" installs it
through the same ``/plugin install`` as everywhere, and the picker then shows it enabled."""

from __future__ import annotations

import html
import re
from pathlib import Path

from pi_cli.shell.plugins.commands import plugin_words
from pi_cli.tui.screens.picker import PickerScreen
from tests.agent_core.scripted_stream import ScriptedStream
from tests.shell.plugins.conftest import market_repo  # noqa: F401 - a fixture
from tests.tui.helpers import SIZE, make_app, make_shell, type_text, wait_until

MARKET = "claude-code-workflows"


def screen_text(app) -> str:  # type: ignore[no-untyped-def]
    """What the terminal shows, modal screens included (the SVG screenshot's rows as text)."""
    svg = app.export_screenshot()
    rows: dict[float, list[str]] = {}
    for y, body in re.findall(r'<text[^>]*? y="([0-9.]+)"[^>]*>(.*?)</text>', svg):
        rows.setdefault(float(y), []).append(html.unescape(re.sub(r"<[^>]+>", "", body)))
    return "\n".join("".join(v).replace("\xa0", " ") for _, v in sorted(rows.items()))


async def open_plugins(pilot, app) -> PickerScreen:  # type: ignore[no-untyped-def]
    await type_text(pilot, "/plugin")
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, PickerScreen) and app.screen.shown)
    await pilot.pause()
    return app.screen


async def test_plugin_picker_installs_and_shows_state(tmp_path: Path, market_repo: Path) -> None:  # noqa: F811
    plugin_words(["marketplace", "add", f"file://{market_repo}"], tmp_path)
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await open_plugins(pilot, app)
        drawn = screen_text(app)
        assert f"── {MARKET}" in drawn
        assert "debugging-toolkit" in drawn and "Interactive debugging" in drawn
        assert "before-you-build" in drawn and "✓ enabled" not in drawn
        await type_text(pilot, "debugging")
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, PickerScreen) and app.screen.items[0][0] == "install",
        )
        assert "Install it for this project only" in screen_text(app)
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Installed debugging-toolkit@" in screen_text(app))
        await open_plugins(pilot, app)
        drawn = screen_text(app)
        line = next(row for row in drawn.splitlines() if "debugging-toolkit" in row)
        assert "✓ enabled" in line
        await pilot.press("escape")
