"""Input side of the plain REPL: key bindings and completion of slash commands and ``@file`` paths.

Key facts (DESIGN.md "Terminal key facts"): without the kitty keyboard protocol, Shift+Enter and
Ctrl+Enter arrive as plain Enter and Alt+Enter as ESC CR; only Ctrl+J is a newline chord every
terminal sends. So: Enter submits (a steer while a run is live), ESC CR and Tab-while-running
queue a follow-up, Ctrl+J inserts a newline. Terminals that do send CSI-u / modifyOtherKeys
sequences get Shift+Enter (newline), Ctrl+Enter and Alt+Enter (follow-up) too.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition
from prompt_toolkit.input.ansi_escape_sequences import ANSI_SEQUENCES
from prompt_toolkit.key_binding import (
    DynamicKeyBindings,
    KeyBindings,
    KeyBindingsBase,
    KeyPressEvent,
    merge_key_bindings,
)
from prompt_toolkit.keys import Keys

if TYPE_CHECKING:
    from prompt_toolkit.buffer import Buffer


class KeyTarget(Protocol):
    """What the key bindings drive (the plain REPL)."""

    next_kind: Literal["enter", "follow_up"]

    @property
    def running(self) -> bool: ...
    def abort(self, buffer: Buffer | None) -> None: ...


MAX_PATH_COMPLETIONS = 200
FOLLOW_UP_KEY = Keys.F24  # stands for Ctrl+Enter / CSI-u Alt+Enter, which have no Keys member

_EXTRA_SEQUENCES: dict[str, Any] = {
    "\x1b[13;2u": Keys.ControlJ,  # Shift+Enter (CSI-u)
    "\x1b[27;2;13~": Keys.ControlJ,  # Shift+Enter (xterm modifyOtherKeys)
    "\x1b[13;5u": FOLLOW_UP_KEY,  # Ctrl+Enter
    "\x1b[27;5;13~": FOLLOW_UP_KEY,
    "\x1b[13;3u": FOLLOW_UP_KEY,  # Alt+Enter
    "\x1b[27;3;13~": FOLLOW_UP_KEY,
}


def register_extra_sequences() -> None:
    """Teach prompt-toolkit's VT100 parser the modified-Enter sequences (idempotent)."""
    for sequence, key in _EXTRA_SEQUENCES.items():
        ANSI_SEQUENCES.setdefault(sequence, key)


def build_key_bindings(repl: KeyTarget) -> KeyBindings:
    """The REPL's bindings; they take precedence over prompt-toolkit's defaults."""
    kb = KeyBindings()
    running = Condition(lambda: repl.running)

    @kb.add("c-j")
    def _newline(event: KeyPressEvent) -> None:
        """Ctrl+J (and Shift+Enter where the terminal reports it): a newline in the input."""
        event.current_buffer.insert_text("\n")

    def follow_up(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if not buffer.text.strip():
            return
        repl.next_kind = "follow_up"
        buffer.validate_and_handle()

    # Alt+Enter = ESC CR; while idle it simply submits (there is nothing to follow up on).
    kb.add("escape", "enter")(follow_up)
    kb.add(FOLLOW_UP_KEY)(follow_up)
    kb.add("tab", filter=running)(follow_up)

    @kb.add("escape", filter=running)
    def _abort(event: KeyPressEvent) -> None:
        """Esc while a run is live aborts it."""
        repl.abort(event.current_buffer)

    @kb.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        """Ctrl+C aborts a live run; when idle it clears the input line."""
        if repl.running:
            repl.abort(event.current_buffer)
        else:
            event.current_buffer.reset()

    return kb


# Keys the REPL or prompt-toolkit's line editing already use: an extension's binding of one of
# them is not added (pi's own keys win, as in the TUI).
RESERVED = frozenset(
    {"c-j", "c-c", "c-d", "tab", "escape", "enter", "c-m", "c-i", "c-a", "c-e", "c-b", "c-f"}
    | {"c-k", "c-u", "c-w", "c-y", "c-h", "c-l", "c-p", "c-n", "c-r", "c-s", "c-t", "c-z"}
)


def prompt_toolkit_keys(chord: str) -> tuple[str, ...] | None:
    """A key of the key table (``ctrl+x``, ``alt+x``, ``f5``, ``shift+tab``) as prompt-toolkit
    names it; ``None`` for one a line editor cannot tell (``ctrl+shift+x``...)."""
    *mods, key = chord.strip().lower().split("+")
    if not mods and key.startswith("f") and key[1:].isdigit() and 1 <= int(key[1:]) <= 24:
        return (key,)
    if mods == ["ctrl"] and len(key) == 1 and key.isalpha():
        return (f"c-{key}",)
    if mods == ["alt"] and len(key) == 1 and key.isprintable():
        return ("escape", key)
    if mods == ["shift"] and key == "tab":
        return ("s-tab",)
    return None


def extension_key_bindings(shell: Any) -> KeyBindings:
    """Extensions' key bindings that a line editor can receive (their handlers run as tasks)."""
    kb = KeyBindings()
    extensions = shell.extensions
    if extensions is None:
        return kb
    for key in extensions.keys():
        for chord in key.keys.split(","):
            sequence = prompt_toolkit_keys(chord)
            if sequence is None or (len(sequence) == 1 and sequence[0] in RESERVED):
                continue

            def run(event: KeyPressEvent, key_id: str = key.id) -> None:
                extensions.start_key(key_id)

            kb.add(*sequence)(run)
    return kb


class ExtensionKeys:
    """Extensions' keys for a ``DynamicKeyBindings``: rebuilt when they changed (a load,
    ``/reload``)."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self._stamp: tuple[int, int] | None = None
        self._keys = KeyBindings()

    def __call__(self) -> KeyBindings:
        extensions = self.shell.extensions
        stamp = (id(extensions), extensions.version if extensions else 0)
        if stamp != self._stamp:
            self._stamp, self._keys = stamp, extension_key_bindings(self.shell)
        return self._keys


def repl_key_bindings(target: KeyTarget, shell: Any) -> KeyBindingsBase:
    """pi's own keys (:func:`build_key_bindings`) and the extensions' (pi's win a clash)."""
    return merge_key_bindings(
        [DynamicKeyBindings(ExtensionKeys(shell)), build_key_bindings(target)]
    )


class PiCompleter(Completer):
    """Completes ``/command`` at the start of the input and ``@path`` anywhere.

    Args:
        shell: the CodingAgent (its command registry and cwd).
    """

    def __init__(self, shell: Any) -> None:
        self.shell = shell

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        """Yield completions for the text before the cursor."""
        before = document.text_before_cursor
        if before.startswith("/") and not any(c.isspace() for c in before):
            for command in self.shell.commands.complete(before[1:]):
                yield Completion(
                    "/" + command.name,
                    start_position=-len(before),
                    display_meta=command.description,
                )
            return
        word = before.split()[-1] if before and not before[-1].isspace() else ""
        if word.startswith("@"):
            yield from self._paths(word)
        elif before.startswith("/") and "\n" not in before:  # a command's argument
            name, _, typed = before[1:].partition(" ")
            for value, detail in self.shell.commands.complete_argument(name, typed):
                yield Completion(value, start_position=-len(typed), display_meta=detail or None)

    def _paths(self, word: str) -> Iterator[Completion]:
        partial = word[1:]
        folder, _, stem = partial.rpartition("/")
        base = Path(self.shell.cwd)
        directory = base / os.path.expanduser(folder) if folder else base
        if partial.startswith("/"):
            directory = Path(folder or "/")
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return
        shown = 0
        for entry in entries:
            if not entry.name.startswith(stem) or (
                entry.name.startswith(".") and not stem.startswith(".")
            ):
                continue
            is_dir = entry.is_dir()
            prefix = f"{folder}/" if folder or partial.startswith("/") else ""
            text = f"@{prefix}{entry.name}{'/' if is_dir else ''}"
            yield Completion(
                text, start_position=-len(word), display=entry.name + ("/" if is_dir else "")
            )
            shown += 1
            if shown >= MAX_PATH_COMPLETIONS:
                return
