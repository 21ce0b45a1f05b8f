"""The key row every dialog ends with: ``[y] Allow once   [n] Deny   [Esc] back``.

Each hint stays whole: when the row is wider than the dialog it wraps *between* hints, so a
narrow terminal shows every key on more rows instead of cutting the last ones off ("Deny" was
lost below ~100 columns). Dialogs show the same row in the same place with the same words for
the same keys (``Esc`` is "back" in a sub-step and names what it does at the first step).
"""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Size
from textual.widget import Widget

Hint = tuple[str, str]  # (key, what it does): ("y", "Allow once")
GAP = "   "


def pack(hints: list[Hint], width: int) -> list[str]:
    """The hints as rows of at most ``width`` cells, wrapped between hints (a hint longer than
    the width gets a row of its own and is wrapped by the terminal's width only then)."""
    rows: list[str] = []
    row = ""
    for key, label in hints:
        hint = f"[{key}] {label}".rstrip()
        candidate = f"{row}{GAP}{hint}" if row else hint
        if row and Content(candidate).cell_length > width:
            rows.append(row)
            candidate = hint
        row = candidate
    if row:
        rows.append(row)
    return rows


class KeyHints(Widget):
    """A dialog's keys, wrapped between hints to the dialog's width."""

    DEFAULT_CSS = "KeyHints { height: auto; width: 1fr; margin-top: 1; color: $warning; }"

    def __init__(self, hints: list[Hint], id: str | None = None) -> None:
        super().__init__(id=id)
        self.hints = list(hints)

    def show(self, hints: list[Hint]) -> None:
        """Other keys (a dialog's next step)."""
        self.hints = list(hints)
        self.refresh(layout=True)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        width = max(width, 1)
        rows = pack(self.hints, width)
        return max(1, sum(-(-Content(row).cell_length // width) for row in rows))

    def render(self) -> Content:
        width = self.content_size.width or self.size.width or 80
        return Content("\n").join(Content(row) for row in pack(self.hints, width))

    @property
    def text(self) -> str:
        """The hints on one line (tests, screen readers)."""
        return GAP.join(pack(self.hints, 10_000))
