"""A filterable list in a modal screen; dismisses with the chosen value (or None on Esc)."""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

Item = tuple[str, str]  # (value, label)
MAX_SHOWN = 200


class PickerScreen(ModalScreen[str | None]):
    """Type to filter, Up/Down to move, Enter to choose, Esc to cancel.

    ``loader`` runs in a thread when given (slow sources such as the model catalogue).
    ``allow_free_text`` lets Enter return the typed text when nothing matches.
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="picker.cancel"),
        Binding("down", "move(1)", show=False, priority=True, id="picker.down"),
        Binding("up", "move(-1)", show=False, priority=True, id="picker.up"),
    ]

    def __init__(
        self,
        title: str,
        items: list[Item] | None = None,
        *,
        loader: Callable[[], list[Item]] | None = None,
        current: str | None = None,
        allow_free_text: bool = False,
    ) -> None:
        super().__init__(classes="picker")
        self.title_text = title
        self.items: list[Item] = list(items or [])
        self.loader = loader
        self.current = current
        self.allow_free_text = allow_free_text
        self.shown: list[Item] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Label(self.title_text, id="picker-title")
            yield Input(placeholder="filter…", id="picker-filter")
            yield OptionList(id="picker-list")

    def on_mount(self) -> None:
        self.refilter("")
        if self.loader is not None:
            self.run_worker(self._load, thread=True)

    def _load(self) -> None:
        assert self.loader is not None
        try:
            items = self.loader()
        except Exception as exc:  # noqa: BLE001 - show why the list is empty, stay usable
            items = []
            self.app.call_from_thread(self.notify, f"Could not list: {exc}", severity="warning")
        self.app.call_from_thread(self._loaded, items)

    def _loaded(self, items: list[Item]) -> None:
        self.items = items
        self.refilter(self.query_one(Input).value)

    def refilter(self, needle: str) -> None:
        """Show the items whose label contains every word of ``needle``."""
        words = needle.lower().split()
        self.shown = [item for item in self.items if all(w in item[1].lower() for w in words)][
            :MAX_SHOWN
        ]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(label) for _, label in self.shown])
        if self.shown:
            values = [value for value, _ in self.shown]
            options.highlighted = values.index(self.current) if self.current in values else 0

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self.refilter(event.value)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        index = self.query_one(OptionList).highlighted
        if self.shown and index is not None:
            self.dismiss(self.shown[index][0])
        elif self.allow_free_text and event.value.strip():
            self.dismiss(event.value.strip())

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.shown[event.option_index][0])

    def action_move(self, step: int) -> None:
        """Move the highlight."""
        options = self.query_one(OptionList)
        if self.shown:
            options.highlighted = ((options.highlighted or 0) + step) % len(self.shown)

    def action_cancel(self) -> None:
        """Close without choosing."""
        self.dismiss(None)
