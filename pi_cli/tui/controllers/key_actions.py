"""The app's key actions: each ``key('name', ...)`` of the key table, mapped to its handler.

The editor posts them (in key order, after the text typed before the key); the handlers live
in the controllers, so the app itself stays a thin shell around them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, cast

from pi_cli.tui.external_editor import EditorHost

if TYPE_CHECKING:
    from pi_cli.tui.controllers.cursor import TranscriptCursor
    from pi_cli.tui.controllers.input import InputControl
    from pi_cli.tui.controllers.scrolling import ScrollControl
    from pi_cli.tui.controllers.todos import TodoPanels


class KeyActionHost(EditorHost, Protocol):
    """The app with the controllers its key actions call."""

    @property
    def inputs(self) -> InputControl: ...
    @property
    def scroller(self) -> ScrollControl: ...
    @property
    def cursor(self) -> TranscriptCursor: ...
    @property
    def todos(self) -> TodoPanels: ...


def _handlers(app: KeyActionHost) -> dict[str, Callable[..., object]]:
    from pi_cli.tui.controllers.pick_commands import search_history
    from pi_cli.tui.external_editor import edit_prompt
    from pi_cli.tui.terminal import redraw
    from pi_cli.tui.tui_commands import open_queue_view, show_keys

    return {
        "interrupt": app.inputs.interrupt,
        "quit_app": app.inputs.quit,
        "cycle_thinking": app.inputs.cycle_thinking,
        "queue_view": lambda: open_queue_view(app),
        "history_search": lambda: app.run_worker(
            search_history(app), group="picker", exit_on_error=False
        ),
        "external_editor": lambda: edit_prompt(app),
        "scroll_page": app.scroller.page,
        "scroll_edge": lambda bottom: app.scroller.edge(bool(bottom)),
        "cursor_move": app.cursor.move,
        "toggle_tools": app.cursor.toggle_tools,
        "toggle_turn": app.cursor.toggle_turn,
        "toggle_thinking": lambda: app.transcript.toggle_thinking(),
        "show_keys": lambda: show_keys(app),
        "cycle_permission_mode": lambda: app.shell.permissions.cycle() if app.shell else None,
        "toggle_todos": app.todos.toggle,
        "search_transcript": lambda: _search(app),
        "redraw": lambda: redraw(app),
    }


def _search(app: KeyActionHost) -> None:
    from pi_cli.tui.screens.search import SearchScreen

    app.push_screen(SearchScreen(app.transcript.view))


def action_names() -> frozenset[str]:
    """Every action name the key table may use in ``key(...)``."""
    from types import SimpleNamespace

    stub = SimpleNamespace(
        inputs=SimpleNamespace(interrupt=None, quit=None, cycle_thinking=None),
        scroller=SimpleNamespace(page=None),
        cursor=SimpleNamespace(move=None, toggle_tools=None, toggle_turn=None),
        todos=SimpleNamespace(toggle=None),
    )
    return frozenset(_handlers(cast("KeyActionHost", stub)))


def run_key_action(app: KeyActionHost, name: str, args: tuple[object, ...]) -> None:
    """Run the handler of ``name`` with the key table's ``args``."""
    handler = _handlers(app).get(name)
    if handler is not None:
        handler(*args)
