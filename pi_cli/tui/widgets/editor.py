"""The prompt editor: a TextArea whose keys come from the keymap table, plus a completion menu."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from textual.message import Message
from textual.widgets import OptionList, TextArea
from textual.widgets.option_list import Option

from pi_cli.tui.completion import Completer, Completion, CompletionRequest, token_at
from pi_cli.tui.keymap import bindings


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


def in_key_order(action: Callable[..., None]) -> Callable[..., None]:
    """Run a priority-binding action in the editor's own queue, after keys already sent to it.

    Priority bindings fire when the *app* sees the key, but printable keys typed just before
    are only *queued* for the editor. Without this, fast typing (tmux ``send-keys``, pastes)
    makes Enter / Alt+Enter read the text before the last characters are inserted.
    """

    @wraps(action)
    def deferred(self: Editor, *args: Any) -> None:
        self.call_later(action, self, *args)

    return deferred


class Editor(TextArea):
    """Multi-line prompt input. Key handling is data (:mod:`pi_cli.tui.keymap`), decisions are
    the app's: the editor only posts what the user asked for."""

    BINDINGS = bindings("editor")

    @dataclass
    class Submitted(Message):
        """Enter: send (or steer, while a run is live)."""

        text: str
        """The editor text."""

    @dataclass
    class FollowUpRequested(Message):
        """Ctrl+Enter / Alt+Enter / Tab while live: queue a follow-up."""

        text: str
        """The editor text."""

    @dataclass
    class EscapePressed(Message):
        """Esc with no completion menu open: abort the live run."""

    @dataclass
    class QuitRequested(Message):
        """Ctrl+D on an empty editor."""

    @dataclass
    class DequeueRequested(Message):
        """Alt+Up: pull the queued messages back into the editor."""

    def __init__(self, menu: CompletionMenu, completer: Completer | None = None) -> None:
        super().__init__(
            id="editor",
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            compact=True,
            highlight_cursor_line=False,
            placeholder="Ask pi… (/ commands, @ files)",
        )
        self.menu = menu
        self.completer = completer
        self.live = False  # set by the app while a run is live: Tab then queues a follow-up
        self._request: CompletionRequest | None = None

    def on_mount(self) -> None:
        if self.completer is not None:
            # After the first frame; listing a big tree takes seconds (never on the UI thread).
            self.call_after_refresh(
                self.run_worker, self._load_files, thread=True, group="files", exit_on_error=False
            )

    def on_unmount(self) -> None:
        if self.completer is not None:
            self.completer.stop.set()  # do not keep the app's exit waiting on a long listing

    def _load_files(self) -> None:
        """Thread worker: list the project files, then refresh an ``@`` menu typed meanwhile."""
        assert self.completer is not None
        self.completer.load_files()
        if not self.completer.stop.is_set():  # the app may be closing: nothing to refresh
            self.app.call_from_thread(self._files_loaded)

    def _files_loaded(self) -> None:
        if self._request is not None and self._request.kind == "file":
            self.update_completions()

    # ------------------------------------------------------------------ bindings

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # False lets the key fall through to TextArea (Up/Down move the cursor without a menu).
        if action == "complete_move":
            return self.menu.is_open
        if action == "quit_if_empty":  # with text, Ctrl+D keeps TextArea's delete-right
            return not self.text
        return True

    @in_key_order
    def action_submit(self) -> None:
        """Enter: accept a completion (unless the token is already complete), else submit."""
        if self.menu.is_open and not self._token_is_complete() and self._accept():
            return
        self.menu.show([])
        if text := self._take_text():
            self.post_message(self.Submitted(text))

    @in_key_order
    def action_follow_up(self) -> None:
        """Queue the text as a follow-up."""
        if text := self._take_text():
            self.post_message(self.FollowUpRequested(text))

    @in_key_order
    def action_tab(self) -> None:
        """Tab: complete when a menu is open (or can open); while live, queue a follow-up."""
        if self.menu.is_open:
            self._accept()
        elif self.live and self.text.strip():
            self.action_follow_up()
        else:
            self.update_completions()

    @in_key_order
    def action_newline(self) -> None:
        """Insert a newline."""
        self.insert("\n")

    @in_key_order
    def action_complete_move(self, step: int) -> None:
        """Move the completion highlight."""
        self.menu.move(step)

    @in_key_order
    def action_escape(self) -> None:
        """Esc: close the menu, else ask the app to abort."""
        if self.menu.is_open:
            self.menu.show([])
        else:
            self.post_message(self.EscapePressed())

    @in_key_order
    def action_quit_if_empty(self) -> None:
        """Ctrl+D on an empty editor: ask the app to quit."""
        self.post_message(self.QuitRequested())

    @in_key_order
    def action_dequeue(self) -> None:
        """Alt+Up."""
        self.post_message(self.DequeueRequested())

    # ------------------------------------------------------------------ completion

    def _on_text_area_changed(self, event: TextArea.Changed) -> None:
        self.update_completions()

    def update_completions(self) -> None:
        """Recompute the menu for the token at the cursor."""
        if self.completer is None:
            return
        row, column = self.cursor_location
        line = self.document.get_line(row)
        request = token_at(line, column, self.text)
        if request is None:
            self._request = None
            self.menu.show([])
            return
        self._request = request
        self.menu.show(self.completer.complete(request))

    def _take_text(self) -> str:
        """Empty the editor now and return what it held ('' if only whitespace).

        Clearing here, not when the app handles the message, matters: keys typed right after
        Enter are already queued for the editor and would otherwise be wiped with it.
        """
        text = self.text
        if not text.strip():
            return ""
        self.set_text("")
        return text

    def _token_is_complete(self) -> bool:
        choice, request = self.menu.chosen(), self._request
        if choice is None or request is None:
            return False
        row, _ = self.cursor_location
        typed = self.document.get_line(row)[request.start : request.end]
        return typed == choice.replacement.strip()

    def _accept(self) -> bool:
        choice, request = self.menu.chosen(), self._request
        self.menu.show([])
        if choice is None or request is None:
            return False
        row, _ = self.cursor_location
        self.replace(choice.replacement, (row, request.start), (row, request.end))
        return True

    def set_text(self, text: str) -> None:
        """Replace the whole text, cursor at the end."""
        self.text = text
        self.move_cursor(self.document.end)
        self.menu.show([])
