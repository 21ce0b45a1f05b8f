"""An extension's overlay (``ctx.ui.overlay``): a modal of the extension's own lines (the
shell's :class:`~pi_cli.shell.MessageView`, in theme roles) over a list of choices.

Its keys are the dialog's: Enter chooses, Esc dismisses. Taller views scroll inside the box.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Label, Static

from pi_cli.tui.document.custom import view_content
from pi_cli.tui.screens.dialog import DialogScreen
from pi_cli.tui.widgets.key_hints import KeyHints


class OverlayScreen(DialogScreen):
    """A dialog whose body is an extension's view."""

    DEFAULT_CSS = """
    OverlayScreen { align: center middle; }
    OverlayScreen #overlay-view { height: auto; max-height: 24; padding: 0 0 1 0; }
    """

    def compose(self) -> ComposeResult:
        dialog = self.dialog
        assert dialog.view is not None
        view = dialog.view.model_copy(update={"title": None})  # the title is the box's own
        with Vertical(id="dialog-box"):
            source = f"  ({dialog.source})" if dialog.source else ""
            yield Label(Content(dialog.title + source), id="dialog-title")
            with VerticalScroll(id="overlay-view"):
                yield Static(view_content(view), id="dialog-message", markup=False)
            yield from self._answer_widgets()
            yield KeyHints(self._hint(), id="dialog-hint")
