"""The queue view (Alt+Q): pick ONE queued message and edit, delete, reorder it, or promote a
follow-up to a steer, while the run goes on. Every change goes through the shell's queue API;
the list is redrawn from the shell's ``QueueChanged`` (items delivered meanwhile disappear).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from pi_cli.tui.keymap import bindings, chords

if TYPE_CHECKING:
    from pi_cli.shell import QueueView

KIND_LABELS = {"steer": "Steering", "follow_up": "Follow-up", "held": "Queued"}


def _one_line(text: str, limit: int = 150) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class QueueScreen(ModalScreen[None]):
    """A list of the queued messages; keys from the key table's ``queue`` scope."""

    BINDINGS = bindings("queue")

    def __init__(self, queue: QueueView, items: list[tuple[str, str, str]]) -> None:
        super().__init__(classes="picker")
        self.queue = queue
        self.items = list(items)  # (id, text, kind) in delivery order
        self.editing: str | None = None  # id of the item being edited

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box", classes="queue-box"):
            yield Label("Queued messages", id="picker-title")
            yield OptionList(id="queue-list")
            yield Input(id="queue-edit", classes="-hidden")
            yield Label(self._help(), id="picker-status")

    def _help(self) -> str:
        keymap = getattr(self.app, "options", None)
        keys = keymap.keymap if keymap is not None else {}

        def c(binding_id: str) -> str:
            return chords(keys, binding_id).split(" / ")[0]

        return (
            f"{c('queue.edit')} edit · {c('queue.delete')} delete · "
            f"{c('queue.move_up')}/{c('queue.move_down')} move · {c('queue.promote')} steer now · "
            f"{c('queue.close')} close"
        )

    def on_mount(self) -> None:
        self.show_items(self.items)

    # ------------------------------------------------------------------ drawing

    @property
    def selected(self) -> tuple[str, str, str] | None:
        """The highlighted item."""
        index = self.query_one(OptionList).highlighted
        return self.items[index] if self.items and index is not None else None

    def show_items(self, items: list[tuple[str, str, str]], keep: str | None = None) -> None:
        """Redraw from the shell's queue, keeping the highlight on the same item if it is there."""
        current = keep or (self.selected[0] if self.selected else None)
        self.items = list(items)
        options = self.query_one(OptionList)
        options.clear_options()
        if not items:
            options.add_option(Option("(nothing queued)", disabled=True))
            self._stop_editing()
            return
        options.add_options(
            [Option(f"{KIND_LABELS.get(kind, kind)}: {_one_line(text)}") for _, text, kind in items]
        )
        ids = [item_id for item_id, _, _ in items]
        options.highlighted = ids.index(current) if current in ids else 0
        if self.editing is not None and self.editing not in ids:
            self._stop_editing()
            self.notify("That message was delivered meanwhile.", severity="warning")

    # ------------------------------------------------------------------ actions

    def _apply(self, change: Callable[[str], object]) -> None:
        """Apply ``change`` to the highlighted item's id; a refused change is a warning."""
        from pi_cli.shell import QueueError

        item = self.selected
        if item is None:
            return
        try:
            change(item[0])
        except QueueError as exc:
            self.notify(str(exc), severity="warning")

    def action_select(self, step: int) -> None:
        """Move the highlight."""
        if self.editing is None and self.items:
            options = self.query_one(OptionList)
            options.highlighted = ((options.highlighted or 0) + step) % len(self.items)

    def action_edit(self) -> None:
        """Edit the highlighted message in place (Enter saves, Esc cancels)."""
        item = self.selected
        if self.editing is not None or item is None:
            return
        self.editing = item[0]
        field = self.query_one("#queue-edit", Input)
        field.value = item[1]
        field.remove_class("-hidden")
        field.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self.action_edit()

    @on(Input.Submitted, "#queue-edit")
    def _edited(self, event: Input.Submitted) -> None:
        from pi_cli.shell import QueueError

        item_id, self.editing = self.editing, None
        text = event.value
        self._stop_editing()
        if item_id is None:
            return
        try:
            if text.strip():
                self.queue.edit(item_id, text)
            else:
                self.queue.remove(item_id)
        except QueueError as exc:
            self.notify(str(exc), severity="warning")

    def _stop_editing(self) -> None:
        self.editing = None
        field = self.query_one("#queue-edit", Input)
        field.add_class("-hidden")
        self.query_one(OptionList).focus()

    def action_delete(self) -> None:
        """Drop the highlighted message."""
        if self.editing is None:
            self._apply(self.queue.remove)

    def action_move(self, step: int) -> None:
        """Move the highlighted message earlier or later (within its kind)."""
        item = self.selected
        if self.editing is None and item is not None:
            index = self.items.index(item) + step
            self._apply(lambda item_id: self.queue.move(item_id, index))

    def action_promote(self) -> None:
        """Make the highlighted follow-up a steer (the model reads it at its next turn)."""
        item = self.selected
        if self.editing is None and item is not None and item[2] != "steer":
            self._apply(self.queue.promote)

    def action_close(self) -> None:
        """Esc: stop editing, else close."""
        if self.editing is not None:
            self._stop_editing()
        else:
            self.dismiss(None)
