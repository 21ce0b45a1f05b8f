"""Plain-text dump of what an app under ``run_test`` shows (for assertions and debugging)."""

from __future__ import annotations

from textual.app import App


def screen_text(app: App) -> str:
    """Every row of the current screen as text, trailing spaces stripped."""
    update = app.screen._compositor.render_update(full=True)  # test helper
    return "\n".join("".join(seg.text for seg in strip).rstrip() for strip in update.strips)
