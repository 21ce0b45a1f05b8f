"""The dialog modal: an extension's or a tool's question (select, confirm, input, editor).

Its keys are the key table's ``dialog`` scope: Enter answers (in a multiple choice it sends what
is ticked; Space ticks), Ctrl+S sends the editor's text, y / n answer a confirmation, Esc
cancels. A question that allows an answer of the user's own has a line for it under the
options (Tab reaches it). The screen dismisses with a :class:`~pi_cli.shell.DialogAnswer`.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList, SelectionList, Static, TextArea
from textual.widgets.option_list import Option

from pi_cli.shell import DialogAnswer
from pi_cli.tui.keymap import bindings
from pi_cli.tui.messages import DialogShown
from pi_cli.tui.widgets.key_hints import Hint, KeyHints

CANCELLED = DialogAnswer(cancelled=True)
MAX_MESSAGE_LINES = 14


class DialogScreen(ModalScreen[DialogAnswer]):
    """One question (see the module doc for its keys)."""

    BINDINGS = bindings("dialog")
    DEFAULT_CSS = """
    DialogScreen { align: center middle; }
    DialogScreen #dialog-box {
        width: 80%; max-width: 110; height: auto; max-height: 85%;
        border: round $border-active; background: $surface; padding: 0 1;
    }
    DialogScreen #dialog-title { color: $turn-title; text-style: bold; }
    DialogScreen #dialog-message { color: $notice-text; padding: 0 0 1 0; }
    DialogScreen #dialog-options { height: auto; max-height: 16; border: none; }
    DialogScreen #dialog-other, DialogScreen #dialog-input { border: tall $border; }
    DialogScreen #dialog-editor { height: 10; }
    """

    def __init__(self, dialog: DialogShown) -> None:
        super().__init__()
        self.dialog = dialog

    # ------------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        dialog = self.dialog
        with Vertical(id="dialog-box"):
            source = f"  ({dialog.source})" if dialog.source else ""
            yield Label(Content(dialog.title + source), id="dialog-title")
            if dialog.message:
                lines = dialog.message.splitlines()
                shown = lines[:MAX_MESSAGE_LINES]
                if len(lines) > MAX_MESSAGE_LINES:
                    shown.append(f"… and {len(lines) - MAX_MESSAGE_LINES} more lines")
                yield Static(Content("\n".join(shown)), id="dialog-message", markup=False)
            yield from self._answer_widgets()
            yield KeyHints(self._hint(), id="dialog-hint")

    def _answer_widgets(self) -> ComposeResult:
        dialog = self.dialog
        if dialog.kind == "confirm":
            yield OptionList(Option("Yes", id="yes"), Option("No", id="no"), id="dialog-options")
        elif dialog.kind == "select" and dialog.multiple:
            yield SelectionList[int](
                *((self._label(i), i) for i in range(len(dialog.options))), id="dialog-options"
            )
        elif dialog.kind == "select":
            yield OptionList(
                *(Option(self._label(i)) for i in range(len(dialog.options))), id="dialog-options"
            )
        elif dialog.kind == "input":
            yield Input(dialog.default, placeholder=dialog.placeholder, id="dialog-input")
        else:
            yield TextArea(dialog.default, id="dialog-editor", soft_wrap=True)
        if dialog.kind == "select" and dialog.allow_other:
            yield Input(placeholder="or type an answer of your own", id="dialog-other")

    def _label(self, index: int) -> Content:
        label, description = self.dialog.options[index]
        if not description:
            return Content(label)
        return Content.assemble(label, "  ", Content.styled(description, "$hint-text"))

    def _hint(self) -> list[Hint]:
        kind, dialog = self.dialog.kind, self.dialog
        keys: list[Hint]
        if kind == "confirm":
            keys = [("y", "Yes"), ("n", "No")]
        elif kind == "select" and dialog.multiple:
            keys = [("Space", "Tick"), ("Enter", "Send")]
        elif kind == "editor":
            keys = [("Ctrl+S", "Send")]
        else:
            keys = [("Enter", "Send")]
        if kind == "select" and dialog.allow_other:
            keys.append(("Tab", "Your own answer"))
        return [*keys, ("Esc", "Cancel")]

    def on_mount(self) -> None:
        focus = self.query("#dialog-options, #dialog-input, #dialog-editor").first()
        focus.focus()

    # ------------------------------------------------------------------ keys

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """y / n only for a confirmation; Enter is ours only in a multiple choice's list."""
        if action == "confirm":
            return self.dialog.kind == "confirm" and not isinstance(self.focused, Input)
        if action == "submit_ticked":
            return self.dialog.multiple and isinstance(self.focused, SelectionList)
        if action == "submit_text":
            return self.dialog.kind == "editor"
        return True

    def action_cancel(self) -> None:
        """No answer."""
        self.dismiss(CANCELLED)

    def action_confirm(self, yes: bool) -> None:
        """Answer a confirmation."""
        self.dismiss(DialogAnswer(confirmed=yes))

    def action_submit_ticked(self) -> None:
        """Send the ticked options (and the own answer, if typed)."""
        self._send_multiple()

    def action_submit_text(self) -> None:
        """Send the editor's text."""
        self.dismiss(DialogAnswer(text=self.query_one(TextArea).text))

    # ------------------------------------------------------------------ answers

    @on(OptionList.OptionSelected, "#dialog-options")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        if self.dialog.kind == "confirm":
            self.dismiss(DialogAnswer(confirmed=event.option.id == "yes"))
        elif not self.dialog.multiple:
            self.dismiss(DialogAnswer(values=(self.dialog.labels[event.option_index],)))

    @on(Input.Submitted, "#dialog-input")
    def _typed(self, event: Input.Submitted) -> None:
        self.dismiss(DialogAnswer(text=event.value))

    @on(Input.Submitted, "#dialog-other")
    def _own(self, event: Input.Submitted) -> None:
        if self.dialog.multiple:
            self._send_multiple()
        elif event.value.strip():
            self.dismiss(DialogAnswer(other=event.value.strip()))

    def _send_multiple(self) -> None:
        ticked = self.query_one(SelectionList).selected
        labels = tuple(self.dialog.labels[i] for i in sorted(ticked))
        own = (
            self.query("#dialog-other").first(Input).value.strip()
            if self.dialog.allow_other
            else ""
        )
        if not labels and not own:
            self.query_one(KeyHints).show(
                [("Space", "Tick at least one option first"), ("Enter", "Send"), ("Esc", "Cancel")]
            )
            return
        self.dismiss(DialogAnswer(values=labels, other=own or None))
