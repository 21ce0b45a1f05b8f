"""The model's todo list above the editor, live; a key (``pi.toggle_todos``) hides or shows it."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

_MARKS = {
    "completed": ("✓", "$success"),
    "in_progress": ("▸", "bold $warning"),
    "pending": ("○", ""),
}
MAX_SHOWN = 12


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


class TodoPanel(Static):
    """``Todo 1/3`` and one line per item; hidden while empty or toggled off (``-off``)."""

    DEFAULT_CSS = """
    TodoPanel {
        height: auto;
        max-height: 14;
        padding: 0 1;
        border-left: wide $border;
        color: $notice-text;
        display: none;
    }
    TodoPanel.-shown { display: block; }
    TodoPanel.-shown.-off { display: none; }
    """

    def __init__(self) -> None:
        super().__init__("", id="todos", markup=False)
        self.items: list[tuple[str, str]] = []

    def show_items(self, items: list[tuple[str, str]]) -> None:
        """Draw ``(status, text)`` items (an empty list hides the panel)."""
        self.items = list(items)
        done = sum(1 for status, _ in items if status == "completed")
        lines = [Content.styled(f"Todo {done}/{len(items)}", "bold $turn-title")]
        shown = items
        if len(items) > MAX_SHOWN:  # keep the one in progress in view
            first = next((i for i, (s, _) in enumerate(items) if s != "completed"), 0)
            start = max(0, min(first, len(items) - MAX_SHOWN))
            shown = items[start : start + MAX_SHOWN]
        for status, text in shown:
            mark, style = _MARKS.get(status, ("·", ""))
            line = f" {mark} {_one_line(text)}"
            lines.append(Content.styled(line, style) if style else Content(line))
        if len(shown) < len(items):
            lines.append(Content.styled(f"   … {len(items) - len(shown)} more", "$hint-text"))
        self.update(Content("\n").join(lines))
        self.set_class(bool(items), "-shown")

    def toggle(self) -> None:
        """Hide or show the panel (it stays hidden while the list is empty)."""
        self.toggle_class("-off")
