"""The prompt editor: a TextArea whose keys come from the key table (scope ``main``).

Decisions are the app's: the editor posts what the user asked for. It owns what belongs to the
text being written: completion, the prompt history while browsing it, collapsed pastes and
attached images.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import wraps
from pathlib import Path
from typing import Any

from textual import events, on
from textual.message import Message
from textual.widgets import TextArea

from pi_cli.tui.completion import Completer, CompletionRequest, token_at
from pi_cli.tui.keymap import bindings
from pi_cli.tui.paste import Attachments, pasted_labels, pasted_path
from pi_cli.tui.prompt_history import PromptHistory
from pi_cli.tui.widgets.completion_menu import CompletionMenu

__all__ = ["CompletionMenu", "Editor"]


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
    """Multi-line prompt input."""

    BINDINGS = bindings("main")

    @dataclass
    class Submitted(Message):
        """Enter: send (or steer, while a run is live)."""

        text: str
        """The editor text, collapsed pastes expanded."""
        images: list[Path] = field(default_factory=list)
        """Image files to attach."""
        shown: str | None = None
        """How the transcript shows it: pastes as ``[pasted 80 lines]`` (None: as sent)."""

    @dataclass
    class FollowUpRequested(Message):
        """Ctrl+Enter / Alt+Enter / Tab while live: queue a follow-up."""

        text: str
        """The editor text, collapsed pastes expanded."""
        images: list[Path] = field(default_factory=list)
        """Image files to attach."""
        shown: str | None = None
        """How the transcript shows it: pastes as ``[pasted 80 lines]`` (None: as sent)."""

    @dataclass
    class EscapePressed(Message):
        """Esc with no completion menu open: clear the cursor or abort the live run."""

    @dataclass
    class QuitRequested(Message):
        """Ctrl+D on an empty editor."""

    @dataclass
    class DequeueRequested(Message):
        """Alt+Up: pull the queued messages back into the editor."""

    @dataclass
    class KeyPressed(Message):
        """A key whose action is the app's (``key('name', ...)`` in the key table)."""

        name: str
        """The action's name (see :mod:`pi_cli.tui.controllers.key_actions`)."""
        args: tuple[object, ...] = ()
        """Its parameters from the key table."""

    def __init__(
        self,
        menu: CompletionMenu,
        completer: Completer | None = None,
        history: PromptHistory | None = None,
        cwd: Path | None = None,
    ) -> None:
        super().__init__(
            id="editor",
            soft_wrap=True,
            tab_behavior="focus",
            show_line_numbers=False,
            compact=True,
            highlight_cursor_line=False,
            placeholder="Ask pi… (/ commands, @ files and images, ? keys)",
        )
        self.menu = menu
        self.completer = completer
        self.prompt_history = history or PromptHistory(None)
        self.cwd = cwd or Path.cwd()
        self.attachments = Attachments()
        self.live = False  # set by the app while a run is live: Tab then queues a follow-up
        self._request: CompletionRequest | None = None
        self._recalled: str | None = None  # the history entry put in, while browsing

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
        if action == "history":
            if self.menu.is_open:
                return False
            # While an untouched recalled prompt is shown, Up and Down keep browsing.
            browsing = self.prompt_history.browsing and self.text == self._recalled
            row = self.cursor_location[0]
            if parameters and parameters[0] == -1:
                return browsing or row == 0
            return browsing or (
                self.prompt_history.browsing and row == self.document.line_count - 1
            )
        if action == "quit_if_empty":  # with text, Ctrl+D keeps TextArea's delete-right
            return not self.text
        return True

    @in_key_order
    def action_submit(self) -> None:
        """Enter: send. An open command menu completes the name and sends in one go; an open
        file menu inserts the file (unless the token is already complete, then it sends)."""
        self.update_completions()  # now, from the text as it is: never a stale token
        request = self._request
        if self.menu.is_open and not self._token_is_complete() and request and request.query:
            self._accept()
            if request.kind != "command":
                return
        self.menu.show([])
        self._send(self.Submitted)

    @in_key_order
    def action_follow_up(self) -> None:
        """Queue the text as a follow-up."""
        self._send(self.FollowUpRequested)

    @in_key_order
    def action_tab(self) -> None:
        """Tab: complete when a menu is open (or can open); while live, queue a follow-up."""
        self.update_completions()
        if self.menu.is_open:
            self._accept()
        elif self.live and self.text.strip():
            self._send(self.FollowUpRequested)

    @in_key_order
    def action_newline(self) -> None:
        """Insert a newline."""
        self.insert("\n")

    @in_key_order
    def action_complete_move(self, step: int) -> None:
        """Move the completion highlight."""
        self.menu.move(step)

    @in_key_order
    def action_history(self, step: int) -> None:
        """Up on the first line / Down on the last: an earlier or later prompt."""
        value = self.prompt_history.step(step, self.text)
        if value is not None:
            self._recalled = value if self.prompt_history.browsing else None
            self.set_text(value)

    @in_key_order
    def action_escape(self) -> None:
        """Esc: close the menu, else tell the app (cursor, abort)."""
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

    @in_key_order
    def action_key(self, name: str, *args: object) -> None:
        """An app action from the key table, posted in key order."""
        self.post_message(self.KeyPressed(name, args))

    @in_key_order
    def action_empty_key(self, name: str) -> None:
        """``?`` / Home / End: the app's (keys list, scroll) on an empty editor, else the
        editor's own (decided in key order, after the text typed before the key)."""
        if not self.text:
            action = {"keys": ("show_keys", ()), "top": ("scroll_edge", (0,))}
            self.post_message(self.KeyPressed(*action.get(name, ("scroll_edge", (1,)))))
        elif name == "keys":
            self.insert_at_cursor("?")
        elif name == "top":
            self.action_cursor_line_start()
        else:
            self.action_cursor_line_end()

    # ------------------------------------------------------------------ text

    def _send(self, kind: type[Submitted] | type[FollowUpRequested]) -> None:
        if text := self._take_text():
            images = self.attachments.take_images(text, self.cwd)
            expanded = self.attachments.expand(text)
            self.attachments.clear()
            shown = pasted_labels(text) if expanded != text else None
            self.post_message(kind(expanded, images, shown))

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

    def set_text(self, text: str) -> None:
        """Replace the whole text, cursor at the end."""
        self.text = text
        self.move_cursor(self.document.end)
        self.menu.show([])

    def insert_at_cursor(self, text: str) -> None:
        """Insert ``text`` over the selection, cursor after it."""
        start, end = self.selection
        result = self.replace(text, start, end)
        self.move_cursor(result.end_location)

    @on(events.Paste)
    def _pasted(self, event: events.Paste) -> None:
        """A long paste collapses to a placeholder; a pasted image path attaches the image."""
        event.prevent_default()  # not TextArea's own paste: this one
        event.stop()
        if self.read_only:
            return
        path = pasted_path(event.text, self.cwd)
        if path is not None:
            self.insert_at_cursor(self.attachments.attach_image(path) + " ")
        else:
            placeholder = self.attachments.collapse(event.text)
            text = event.text.replace("\r\n", "\n").replace("\r", "\n")
            self.insert_at_cursor(placeholder if placeholder is not None else text)
        # A big paste changes the layout at once: repaint the whole screen after it, so no
        # half-drawn frame stays until the next key.
        self.app.call_after_refresh(self.app.screen.refresh, layout=True)

    # ------------------------------------------------------------------ completion

    def _on_text_area_changed(self, event: TextArea.Changed) -> None:
        if self.prompt_history.browsing and self.text != self._recalled:
            self.prompt_history.stop()  # an edited recall is a new draft
        if not self.text:
            self.attachments.clear()
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
