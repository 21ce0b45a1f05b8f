"""Opening the session the shell starts with, and switching to a new or another session."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pi_cli.shell.session.files import (
    RestoringShell,
    open_session,
    resolve_session,
    restore_session,
)
from pi_cli.shell.session.store import SessionStore

if TYPE_CHECKING:
    from pi_cli.shell.events import SessionReason, ShellEvent
    from pi_cli.shell.hooks import HookManager
    from pi_cli.shell.input_queue import InputQueue


class _Shell(RestoringShell, Protocol):
    @property
    def cwd(self) -> Path: ...
    def ensure_idle(self, what: str) -> None: ...
    def adopt_session(self, store: SessionStore, reason: SessionReason) -> None: ...


def open_startup_session(shell: _Shell) -> SessionStore:
    """The session the shell starts with (new, ``-c``, ``--session``), its messages loaded."""
    store, note = open_session(shell.cwd, shell.options)
    if note:
        shell.notify(note, "warning")
    if store.path is not None and store.entries:
        restore_session(shell, store)
    return store


def switch_to(shell: _Shell, ref: str | Path | None) -> None:
    """A fresh session (``ref`` None) or another one of this project (a path or an id).

    Raises SessionError while a run is live: its remaining messages would land in the new file.
    """
    shell.ensure_idle("start a new session" if ref is None else "switch sessions")
    persist = shell.options.persist_session
    if ref is None:
        store = SessionStore.create(shell.cwd, persist=persist)
    else:
        path = ref if isinstance(ref, Path) else resolve_session(ref, shell.cwd)
        store = SessionStore.open(path, persist=persist)
    shell.agent.reset()
    shell.adopt_session(store, "new" if ref is None else "resume")


class _Adopting(RestoringShell, Protocol):
    """The shell whose session is replaced (its ``session`` attribute is assigned)."""

    session: SessionStore

    @property
    def queue(self) -> InputQueue: ...
    @property
    def hooks(self) -> HookManager: ...
    def emit(self, event: ShellEvent) -> None: ...


def adopt(shell: _Adopting, store: SessionStore, reason: SessionReason) -> None:
    """Make ``store`` the shell's session: the conversation comes from it, listeners and hooks
    learn it (``CodingAgent.adopt_session``)."""
    from pi_cli.shell.events import SessionChanged

    shell.queue.take_all()
    shell.session = store
    if reason == "resume":
        restore_session(shell, store)
    else:
        shell.agent.replace_messages(store.build_context())
    path = str(store.path) if store.path is not None else None
    shell.emit(SessionChanged(session_id=store.session_id, path=path, reason=reason))
    if reason != "tree":
        shell.hooks.start_source = "resume" if reason in ("resume", "fork") else "clear"
        shell.hooks.session_start()
