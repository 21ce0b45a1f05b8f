"""A filterable list in a modal screen; dismisses with the chosen value (or None on Esc)."""

from __future__ import annotations

from collections.abc import Callable

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from pi_cli.tui.keymap import bindings
from pi_cli.tui.widgets.key_hints import KeyHints

Item = tuple[str, str]  # (value, label); an empty value is a heading, not a choice
MAX_SHOWN = 300


class PickerScreen(ModalScreen[str | None]):
    """Type to filter, Up/Down to move, Enter to choose, Esc to cancel.

    ``loader`` runs in a thread when given (slow sources such as the model catalogue).
    ``allow_free_text`` lets Enter return the typed text when nothing matches.
    ``on_highlight`` is called with each highlighted value (the theme picker previews).
    """

    BINDINGS = bindings("picker")

    def __init__(
        self,
        title: str,
        items: list[Item] | None = None,
        *,
        loader: Callable[[], list[Item]] | None = None,
        current: str | None = None,
        allow_free_text: bool = False,
        on_highlight: Callable[[str], None] | None = None,
        escape: str = "Cancel",
    ) -> None:
        super().__init__(classes="picker")
        self.escape = escape  # what Esc does here ("Back" in a later step)
        self.title_text = title
        self.items: list[Item] = list(items or [])
        self.loader = loader
        self.current = current
        self.allow_free_text = allow_free_text
        self.on_highlight = on_highlight
        self.shown: list[Item] = []
        self.listing = loader is not None  # not `loading`: that is Widget.loading (an overlay)

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Label(self.title_text, id="picker-title")
            yield Input(placeholder="filter…", id="picker-filter")
            yield OptionList(id="picker-list")
            yield Label("", id="picker-status")
            yield KeyHints([("↑↓", "Move"), ("Enter", "Choose"), ("Esc", self.escape)])

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
        self.listing = False
        self.items = items
        self.refilter(self.query_one(Input).value)

    def refilter(self, needle: str) -> None:
        """Show the items whose label contains every word of ``needle`` (headings only while
        nothing is typed)."""
        words = needle.lower().split()
        shown = [
            item
            for item in self.items
            if (item[0] or not words) and all(w in item[1].lower() for w in words)
        ]
        self.shown = shown[:MAX_SHOWN]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(
            [Option(label, disabled=not value) for value, label in self.shown]  # headings
        )
        values = [value for value, _ in self.shown]
        if self.current in values:
            options.highlighted = values.index(self.current)
        elif any(values):
            options.highlighted = next(i for i, v in enumerate(values) if v)
        self._status(needle, len(shown))

    def _status(self, needle: str, matches: int) -> None:
        status = self.query_one("#picker-status", Label)
        choices = sum(1 for value, _ in self.shown if value)
        if self.listing:
            text = "loading…"
        elif not choices and needle.strip():
            use = f": Enter uses “{needle.strip()}” as typed" if self.allow_free_text else ""
            text = f"no match{use}"
        elif matches > MAX_SHOWN:
            text = f"{MAX_SHOWN} of {matches} shown: type to narrow"
        else:
            text = ""
        status.update(text)

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        self.refilter(event.value)

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        index = self.query_one(OptionList).highlighted
        if self.shown and index is not None and self.shown[index][0]:
            self.dismiss(self.shown[index][0])
        elif self.allow_free_text and event.value.strip():
            self.dismiss(event.value.strip())

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        value = self.shown[event.option_index][0]
        if value:
            self.dismiss(value)

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if self.on_highlight is not None and event.option_index < len(self.shown):
            value = self.shown[event.option_index][0]
            if value:
                self.on_highlight(value)

    def action_move(self, step: int) -> None:
        """Move the highlight (over choices, not headings)."""
        options = self.query_one(OptionList)
        if not any(value for value, _ in self.shown):
            return
        index = options.highlighted or 0
        for _ in self.shown:
            index = (index + step) % len(self.shown)
            if self.shown[index][0]:
                break
        options.highlighted = index

    def action_cancel(self) -> None:
        """Close without choosing."""
        self.dismiss(None)
