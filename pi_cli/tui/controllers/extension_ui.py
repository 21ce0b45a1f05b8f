"""Dialogs and extensions' pieces of UI for the app: open the modal, place the pieces.

The shell decided what to ask and what to show; the modal's answer goes back with
``shell.answer``. Footer segments join the footer's first line; status lines go under the
editor, panels above it (:mod:`pi_cli.tui.widgets.ui_pieces`); a title is the terminal's
(OSC 2), editor text replaces the editor's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from textual.app import App

from pi_cli.tui import messages as m
from pi_cli.tui.screens.dialog import CANCELLED, DialogScreen
from pi_cli.tui.widgets.footer import Item

if TYPE_CHECKING:
    from pi_cli.shell import DialogAnswer, FrontShell
    from pi_cli.tui.controllers.attention import Attention
    from pi_cli.tui.widgets.editor import Editor
    from pi_cli.tui.widgets.footer import StatusFooter
    from pi_cli.tui.widgets.ui_pieces import UiPieces

Answer = Callable[[str, "DialogAnswer"], bool]
FOOTER_PRIORITY = 35  # below the permission mode and the activity, above cache figures


class UiHost(Protocol):
    """What :func:`route_ui` needs of the app."""

    footer: StatusFooter
    editor: Editor
    ext_panel: UiPieces
    ext_status: UiPieces
    shell: FrontShell | None
    attention: Attention | None


def route_ui(
    app: App[Any], host: UiHost, message: m.DialogShown | m.DialogClosed | m.UiPieceChanged
) -> None:
    """One dialog or piece of UI from the shell: place it, close it, or ask the user."""
    if isinstance(message, m.UiPieceChanged) and message.slot == "title":
        set_title(app, message.text)
    elif isinstance(message, m.UiPieceChanged) and message.slot == "editor":
        host.editor.set_text(message.text or "")
        host.editor.move_cursor(host.editor.document.end)
    elif isinstance(message, m.UiPieceChanged):
        place_piece(message, host.footer, host.ext_panel, host.ext_status)
    elif isinstance(message, m.DialogClosed):
        close_dialog(app, message.request_id)
    elif host.shell is not None:
        if host.attention is not None:
            host.attention.request(f"Question: {message.title}")
        open_dialog(app, message, host.shell.answer)


def set_title(app: App[Any], title: str | None) -> None:
    """The terminal's title (OSC 2), cleaned once more; ``None``: pi's own ("pi")."""
    from pi_cli.tui.messages import clean
    from pi_cli.tui.terminal import write_raw

    text = " ".join(clean(title or "").split())[:200] or "pi"
    app.title = text
    write_raw(app, f"\x1b]2;{text}\x07")


def open_dialog(app: App[Any], message: m.DialogShown, answer: Answer) -> None:
    """Show the modal for one dialog; its answer goes to the shell."""

    def answered(result: DialogAnswer | None) -> None:
        try:
            answer(message.request_id, result or CANCELLED)
        except ValueError:  # cannot fit the question (it changed?): no answer, never a hang
            answer(message.request_id, CANCELLED)

    if message.view is not None:
        from pi_cli.tui.screens.overlay import OverlayScreen

        app.push_screen(OverlayScreen(message), callback=answered)
    else:
        app.push_screen(DialogScreen(message), callback=answered)


def close_dialog(app: App[Any], request_id: str) -> None:
    """Close the modal of a dialog that ended elsewhere (timeout, abort, another client)."""
    for screen in app.screen_stack:
        if isinstance(screen, DialogScreen) and screen.dialog.request_id == request_id:
            if screen is app.screen:
                screen.dismiss(None)
            else:
                app.call_later(screen.dismiss, None)


def place_piece(
    message: m.UiPieceChanged, footer: StatusFooter, panel: UiPieces, status: UiPieces
) -> None:
    """Show (or remove) one piece of extension UI where its slot says."""
    if message.slot == "footer":
        text = " ".join((message.text or "").split())
        item = Item(text, "$footer-text", priority=FOOTER_PRIORITY) if text else None
        footer.set_item(f"ext:{message.key}", item)
    elif message.slot == "panel":
        panel.set_piece(message.key, message.lines)
    else:
        lines = message.text.splitlines()[:1] if message.text is not None else None
        status.set_piece(message.key, lines)


def bind_extension_keys(
    app: App[Any], keys: list[tuple[str, str, str]], keymap: dict[str, str]
) -> list[str]:
    """Bind extensions' keys ((id, keys, description), the user's remaps applied by the shell)
    as priority bindings of the app (so the editor's own, such as F6 "select line", do not
    swallow them), except the keys of pi's main screen (``keymap``: the user's remaps): pi's
    own keys win. Returns what was left out, for a notice."""
    from pi_cli.tui.keymap import DEFAULT_KEYS, effective_keys

    effective = effective_keys(keymap)
    taken = {k for spec in DEFAULT_KEYS if spec.scope == "main" for k in effective[spec.id]}
    left_out: list[str] = []
    for key_id, chords, description in keys:
        free = [c for c in chords.split(",") if c and c not in taken]
        left_out += [f"{c} ({key_id})" for c in chords.split(",") if c in taken]
        if free:
            action = f"extension_key({key_id!r})"
            # App.bind makes no priority binding; its BindingsMap does (the same call inside).
            app._bindings.bind(",".join(free), action, description, show=False, priority=True)
    return left_out


def rebind_keys(app: App[Any], shell: FrontShell | None) -> None:
    """Bind the shell's extensions' keys (at attach and after ``/reload``); a clash with one of
    pi's own keys is said once."""
    if shell is None or shell.extensions is None:
        return
    keys = [(k.id, k.keys, k.description) for k in shell.extensions.keys()]
    keymap: dict[str, str] = getattr(getattr(app, "options", None), "keymap", {})
    for clash in bind_extension_keys(app, keys, keymap):
        shell.notify(f"Extension key {clash} is one of pi's own: not bound", "warning")
