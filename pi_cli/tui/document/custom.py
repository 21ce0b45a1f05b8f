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

    def __init__(self, view: MessageView, custom_type: str) -> None:
        super().__init__(view_content(view))
        self.custom_type = custom_type

    def left(self) -> Content:
        return Content.styled(BAR, styles.CUSTOM_BAR) + Content(" ")
