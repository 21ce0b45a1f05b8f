"""An extension's custom message in the transcript: the shell's view (a title and lines of spans
in theme roles) drawn as a block with a bar on its left."""

from __future__ import annotations

from textual.content import Content

from pi_cli.shell import MessageView
from pi_cli.tui.document import styles
from pi_cli.tui.document.entries import TextBlock
from pi_cli.tui.document.panel import BAR


def view_content(view: MessageView) -> Content:
    """``view`` as styled text (its title first, in bold)."""
    parts: list[str | tuple[str, str]] = []
    if view.title:
        parts.append((view.title, "bold"))
    for line in view.lines:
        if parts:
            parts.append("\n")
        parts.extend((span.text, styles.VIEW_ROLES.get(span.role, "")) for span in line)
    return Content.assemble(*parts)


class CustomMessageBlock(TextBlock):
    """A message an extension sent (``pi.send_message``), drawn by its renderer's view."""

    margin_top = 1
    pad_right = 1

    def __init__(
        self, view: MessageView, custom_type: str, expanded: MessageView | None = None
    ) -> None:
        super().__init__(view_content(view))
        self.custom_type = custom_type
        self.view = view
        self.expanded_view = expanded
        self.expanded = False

    def set_cursor(self, on: bool) -> None:
        """Show or hide the transcript cursor on this block (one that can unfold)."""
        self.style = styles.CURSOR_BG if on else ""
        self._rows = None
        self.redrawn()

    def hit(self, index: int) -> bool:
        return self.expanded_view is not None

    def toggle(self) -> None:
        """Unfold to the renderer's expanded view, or fold back (Ctrl+O, a click)."""
        if self.expanded_view is not None:
            self.expanded = not self.expanded
            self.update(view_content(self.expanded_view if self.expanded else self.view))

    def left(self) -> Content:
        return Content.styled(BAR, styles.CUSTOM_BAR) + Content(" ")
