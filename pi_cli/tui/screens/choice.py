"""A question in a modal: a title, a few lines to read, and options to choose one of."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from pi_cli.tui.messages import clean
from pi_cli.tui.widgets.key_hints import KeyHints

MAX_BODY_LINES = 14


class ChoiceScreen(ModalScreen[str | None]):
    """Up/Down and Enter choose an option (dismissed with its value); Esc answers None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="choice.cancel")]
    DEFAULT_CSS = """
    ChoiceScreen { align: center middle; }
    ChoiceScreen #picker-box { height: auto; max-height: 80%; }
    ChoiceScreen #choice-body { color: $notice-text; padding: 0 0 1 0; }
    ChoiceScreen #picker-list { height: auto; max-height: 10; }
    """

    def __init__(
        self,
        title: str,
        body: list[str],
        options: list[tuple[str, str]],
        *,
        escape: str = "Cancel",
    ) -> None:
        """``escape`` says what Esc does here ("Back" in a later step of a dialogue)."""
        super().__init__(classes="picker")
        self.escape = escape
        self.title_text = title
        shown = [clean(line) for line in body[:MAX_BODY_LINES]]
        if len(body) > MAX_BODY_LINES:
            shown.append(f"… and {len(body) - MAX_BODY_LINES} more")
        self.body = shown
        self.options = options

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Label(clean(self.title_text), id="picker-title")
            if self.body:
                yield Static("\n".join(self.body), id="choice-body", markup=False)
            yield OptionList(
                *(Option(Text(clean(label))) for _, label in self.options), id="picker-list"
            )
            yield KeyHints([("↑↓", "Move"), ("Enter", "Choose"), ("Esc", self.escape)])

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.options[event.option_index][0])

    def action_cancel(self) -> None:
        """Close without choosing."""
        self.dismiss(None)
