"""The completion menu under the editor: candidates for the token at the cursor."""

from __future__ import annotations

from textual.widgets import OptionList
from textual.widgets.option_list import Option

from pi_cli.tui.completion import Completion


class CompletionMenu(OptionList):
    """Candidates for the token at the cursor; hidden (no ``-open`` class) when empty."""

    def __init__(self) -> None:
        super().__init__(id="completion")
        self.can_focus = False  # keys stay in the editor
        self.items: list[Completion] = []

    @property
    def is_open(self) -> bool:
        """True when candidates are shown."""
        return bool(self.items)

    def show(self, items: list[Completion]) -> None:
        """Show ``items`` (an empty list closes the menu)."""
        if not items and not self.items:
            return
        self.items = items
        self.clear_options()
        self.add_options([Option(f"{c.label}  {c.detail}".rstrip()) for c in items])
        if items:
            self.highlighted = 0
        self.set_class(bool(items), "-open")

    def move(self, step: int) -> None:
        """Move the highlight."""
        if self.items:
            self.highlighted = ((self.highlighted or 0) + step) % len(self.items)

    def chosen(self) -> Completion | None:
        """The highlighted candidate."""
        if not self.items:
            return None
        return self.items[self.highlighted or 0]
