"""The plain REPL's part for dialogs and extension UI: what they print, what the prompt shows.

A dialog's question is printed when the REPL asks it (:mod:`.dialogs`); here only how it ended
when the user did not answer it (a timeout, an abort). The status line command's output
(:mod:`pi_cli.shell.status_line`, colours stripped), footer segments and status lines go into
the bottom toolbar, panels above the input line (:meth:`PlainUi.panel_lines`); a title is the
terminal's (OSC 2), editor text goes into the input line.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from pi_cli.shell import (
    CustomMessageShown,
    DialogRequested,
    DialogResolved,
    MessageView,
    UiChanged,
    clean,
    strip_sgr,
)

if TYPE_CHECKING:
    from pi_cli.shell import FrontShell, StatusLine

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

    from pi_cli.shell import FrontShell

MAX_PANEL_LINES = 8
VIEW_STYLES = {  # an extension's message view: theme roles -> rich styles
    "muted": "dim",
    "dim": "dim",
    "accent": "cyan",
    "success": "green",
    "warning": "yellow",
    "error": "red",
    "bold": "bold",
    "italic": "italic",
    "code": "yellow",
}


def view_text(view: MessageView) -> Text:
    """An extension's message view as rich text (the shell cleaned and capped it)."""
    text = Text()
    if view.title:
        text.append(view.title, style="bold")
    for line in view.lines:
        if text:
            text.append("\n")
        for span in line:
            text.append(span.text, style=VIEW_STYLES.get(span.role, ""))
    return text


class PlainUi:
    """Extension UI state for the prompt, and dialog outcomes for the scrollback."""

    def __init__(
        self, console: Console, on_change: Callable[[], None], shell: FrontShell | None = None
    ) -> None:
        self.console = console
        self.on_change = on_change
        self.shell = shell
        self.pieces: dict[tuple[str, str], UiChanged] = {}
        self.command_line = ""  # the statusLine command's output, colours stripped
        self.status_line: StatusLine | None = None
        self.on_editor: Callable[[str], None] | None = None
        """Puts an extension's text into the input line (the REPL sets it)."""

    def start_status_line(self, shell: FrontShell) -> None:
        """Run the ``statusLine`` command (if set) for the toolbar (call on the loop; the
        toolbar's first drawing does)."""
        self.shell = None  # once
        config = shell.settings.status_line
        if config is None:
            return
        from pi_cli.shell import StatusLine

        self.status_line = StatusLine(shell, config, self._command_line)
        self.status_line.start()

    def _command_line(self, text: str) -> None:
        self.command_line = strip_sgr(text)
        self.on_change()

    async def close(self) -> None:
        """Stop the status line command (a running one is killed with its group)."""
        if self.status_line is not None:
            await self.status_line.aclose()

    def __call__(
        self, event: DialogRequested | DialogResolved | UiChanged | CustomMessageShown
    ) -> None:
        if isinstance(event, CustomMessageShown):
            self.console.print(view_text(event.view))
        elif isinstance(event, UiChanged) and event.slot == "title":
            self.set_title(event.text)
        elif isinstance(event, UiChanged) and event.slot == "editor":
            if self.on_editor is not None:
                self.on_editor(event.text or "")
        elif isinstance(event, UiChanged):
            key = (event.slot, event.key)
            if event.cleared:
                self.pieces.pop(key, None)
            else:
                self.pieces[key] = event
            self.on_change()
        elif isinstance(event, DialogResolved) and event.by != "user":
            why = {
                "timeout": "no answer in time",
                "aborted": "aborted",
                "no_user": "cannot ask here",
            }
            self.console.print(Text(f"  question cancelled ({why[event.by]})", style="yellow"))

    def attach_input(
        self, shell: FrontShell, line: PromptSession[str], later: Callable[[str], None]
    ) -> None:
        """Let extensions read the input ``line`` and fill it (``later``: for the next prompt,
        while none is up)."""
        shell.dialogs.editor_text = lambda: line.default_buffer.text

        def fill(text: str) -> None:
            if line.app.is_running:
                line.default_buffer.text = text
                line.default_buffer.cursor_position = len(text)
            else:
                later(text)

        self.on_editor = fill

    def set_title(self, title: str | None) -> None:
        """The terminal's title (OSC 2, cleaned once more); ``None``: "pi". Only on a terminal."""
        if not self.console.is_terminal or self.console.is_dumb_terminal:
            return
        text = " ".join(clean(title or "").split())[:200] or "pi"
        self.console.file.write(f"\x1b]2;{text}\x07")
        self.console.file.flush()

    def _texts(self, slot: str) -> list[str]:
        return [clean(p.text or "") for (s, _), p in self.pieces.items() if s == slot and p.text]

    def toolbar_parts(self) -> list[str]:
        """The status line command's output, footer segments and status lines, for the bottom
        toolbar."""
        if self.shell is not None:  # drawn on the loop: the status line command starts now
            self.start_status_line(self.shell)
        texts = [self.command_line, *self._texts("footer"), *self._texts("status")]
        return [" ".join(t.split()) for t in texts if t.strip()]

    def panel_lines(self) -> list[str]:
        """Every panel's lines (at most a few each), for above the input line."""
        lines: list[str] = []
        for (slot, _), piece in self.pieces.items():
            if slot == "panel" and piece.lines:
                shown = [clean(line) for line in piece.lines[:MAX_PANEL_LINES]]
                if len(piece.lines) > MAX_PANEL_LINES:
                    shown.append(f"… {len(piece.lines) - MAX_PANEL_LINES} more lines")
                lines.extend(shown)
        return lines
