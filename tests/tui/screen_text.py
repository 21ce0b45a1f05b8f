"""Plain-text dump of what an app under ``run_test`` shows (for assertions and debugging)."""

from __future__ import annotations

from rich.style import Style
from textual.app import App


def screen_text(app: App) -> str:
    """Every row of the current screen as text, trailing spaces stripped (a modal screen with the
    screens below it, as the terminal shows them)."""
    update = app.screen._compositor.render_update(  # test helper
        full=True, screen_stack=app._background_screens
    )
    return "\n".join(
        "".join(chop.text for chop in row if chop is not None).rstrip() for row in update.strips
    )


def row_styles(app: App, needle: str) -> list[tuple[str, Style | None]]:
    """The segments (text, style) of the first screen row holding ``needle``."""
    update = app.screen._compositor.render_update(full=True)
    for line in update.strips:  # a row is a list of strips (one per widget it crosses)
        if needle in "".join(chop.text for chop in line):
            return [(seg.text, seg.style) for chop in line for seg in chop]
    raise AssertionError(f"{needle!r} is not on screen")


def colour_of(app: App, needle: str, char: str) -> str | None:
    """The foreground colour (``#rrggbb``) of the first ``char`` on the row holding ``needle``."""
    for text, style in row_styles(app, needle):
        if char in text and style is not None and style.color is not None:
            return style.color.get_truecolor().hex
    return None


def background_of(app: App, needle: str) -> str | None:
    """The background colour (``#rrggbb``) under the first character of ``needle``."""
    for text, style in row_styles(app, needle):
        if needle[0] in text and style is not None and style.bgcolor is not None:
            return style.bgcolor.get_truecolor().hex
    return None
