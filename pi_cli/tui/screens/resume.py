"""The session picker of ``/resume`` and ``pi -r``: search, rename, delete.

Typing filters by name, title and the text of every prompt; Enter resumes; Ctrl+R renames the
highlighted session (the filter box becomes the name, Enter saves, Esc gives up); Ctrl+D asks
to delete it (Ctrl+D again or ``y`` deletes). The session in use can be renamed, not deleted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from pi_cli.shell import SessionInfo, delete_session, list_sessions, rename_session
from pi_cli.tui.messages import clean

Mode = Literal["search", "rename", "delete"]
HINT = "Enter resume · Ctrl+R rename · Ctrl+D delete · Esc close"


class ResumeScreen(ModalScreen[str | None]):
    """Dismisses with the chosen session's path (or None)."""

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="resume.cancel"),
        Binding("down", "move(1)", show=False, priority=True, id="resume.down"),
        Binding("up", "move(-1)", show=False, priority=True, id="resume.up"),
        Binding("ctrl+r", "rename", "Rename", priority=True, id="resume.rename"),
        Binding("ctrl+d", "delete", "Delete", priority=True, id="resume.delete"),
    ]
    DEFAULT_CSS = """
    ResumeScreen { align: center middle; }
    ResumeScreen #resume-hint { color: $hint-text; }
    """

    def __init__(self, directory: Path, current: Path | None) -> None:
        super().__init__(classes="picker")
        self.directory = directory
        self.current = current
        self.sessions: list[SessionInfo] = []
        self.shown: list[SessionInfo] = []
        self.mode: Mode = "search"
        self.loaded = False

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-box"):
            yield Label("Resume a session (type to search its prompts)", id="picker-title")
            yield Input(placeholder="search…", id="picker-filter")
            yield OptionList(id="picker-list")
            yield Label(HINT, id="resume-hint")

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._load()

    @work(thread=True, exclusive=True, group="resume-load")
    def _load(self) -> None:
        sessions = list_sessions(self.directory)
        self.app.call_from_thread(self._loaded, sessions)

    def _loaded(self, sessions: list[SessionInfo]) -> None:
        self.sessions, self.loaded = sessions, True
        self.refilter(self.query_one(Input).value if self.mode == "search" else "")

    @property
    def highlighted(self) -> SessionInfo | None:
        """The session under the cursor."""
        index = self.query_one(OptionList).highlighted
        return self.shown[index] if self.shown and index is not None else None

    def refilter(self, needle: str) -> None:
        """Show the sessions matching every word of ``needle``."""
        self.shown = [s for s in self.sessions if s.matches(needle)]
        options = self.query_one(OptionList)
        options.clear_options()
        marks = [
            " (this one)" if self.current and s.path == self.current else "" for s in self.shown
        ]
        options.add_options(
            [Option(Text(clean(s.label()) + m)) for s, m in zip(self.shown, marks, strict=True)]
        )
        if self.shown:
            options.highlighted = 0

    def _say(self, text: str) -> None:
        self.query_one("#resume-hint", Label).update(Text(clean(text)))

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        if self.mode == "search":
            self.refilter(event.value)
        elif self.mode == "delete" and event.value.strip().lower() == "y":
            self._delete_now()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        chosen = self.highlighted
        if self.mode == "rename" and chosen is not None:
            if event.value.strip():
                rename_session(chosen.path, event.value)
                self._back_to_search(f"Renamed to {' '.join(event.value.split())}.")
                self._load()
            return
        if self.mode == "delete":
            self._back_to_search("Not deleted.")
            return
        if chosen is not None:
            self.dismiss(str(chosen.path))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        if self.mode == "search":
            self.dismiss(str(self.shown[event.option_index].path))

    def _back_to_search(self, message: str = HINT) -> None:
        self.mode = "search"
        box = self.query_one(Input)
        box.placeholder = "search…"
        box.value = ""
        self._say(message)

    def action_move(self, step: int) -> None:
        """Move the highlight."""
        options = self.query_one(OptionList)
        if self.shown and self.mode == "search":
            options.highlighted = ((options.highlighted or 0) + step) % len(self.shown)

    def action_rename(self) -> None:
        """Type a new name for the highlighted session into the box."""
        chosen = self.highlighted
        if chosen is None:
            return
        self.mode = "rename"
        box = self.query_one(Input)
        box.placeholder = "new name…"
        box.value = chosen.name or chosen.title
        self._say(
            f"Rename {chosen.name or chosen.title or chosen.path.name}: Enter saves, Esc cancels"
        )

    def action_delete(self) -> None:
        """Ask (then, on a second Ctrl+D, delete) the highlighted session."""
        chosen = self.highlighted
        if chosen is None:
            return
        if self.mode == "delete":
            self._delete_now()
            return
        if self.current is not None and chosen.path == self.current:
            self._say("This is the session in use: it cannot be deleted.")
            return
        self.mode = "delete"
        self.query_one(Input).value = ""
        self._say(
            f"Delete {chosen.name or chosen.title or chosen.path.name}? Ctrl+D or y deletes, Esc keeps it"
        )

    def _delete_now(self) -> None:
        chosen = self.highlighted
        if chosen is None:
            return
        try:
            delete_session(chosen.path, self.current)
        except Exception as exc:  # noqa: BLE001 - SessionError, OSError: say it, stay open
            self._back_to_search(f"Not deleted: {exc}")
            return
        self.sessions = [s for s in self.sessions if s.path != chosen.path]
        self._back_to_search(f"Deleted {chosen.path.name}.")
        self.refilter("")

    def action_cancel(self) -> None:
        """Esc: leave rename or delete, else close."""
        if self.mode != "search":
            self._back_to_search()
            self.refilter("")
            return
        self.dismiss(None)
