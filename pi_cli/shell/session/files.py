"""Finding session files: the latest of a directory, by id or path, and opening one for a shell."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pi_cli.shell.paths import sessions_dir
from pi_cli.shell.session.store import SessionError, SessionStore

if TYPE_CHECKING:
    from agent_core import Agent
    from pi_cli.shell.context import Level
    from pi_cli.shell.options import ShellOptions


def find_latest_session(cwd: Path) -> Path | None:
    """The most recently modified session file of ``cwd``."""
    directory = sessions_dir(cwd)
    if not directory.is_dir():
        return None
    files = [p for p in directory.glob("*.jsonl") if p.is_file()]
    return max(files, key=lambda p: p.stat().st_mtime, default=None)


def resolve_session(ref: str, cwd: Path) -> Path:
    """A session path from a file path or a (partial) session id."""
    candidate = Path(ref).expanduser()
    if candidate.is_file():
        return candidate
    directory = sessions_dir(cwd)
    matches = sorted(directory.glob(f"*_{ref}*.jsonl")) if directory.is_dir() else []
    if not matches:
        all_dirs = sessions_dir(cwd).parent
        matches = sorted(all_dirs.glob(f"*/*_{ref}*.jsonl")) if all_dirs.is_dir() else []
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise SessionError(
            f"Session id {ref!r} is ambiguous ({len(matches)} matches); give more characters"
        )
    raise SessionError(f"No session found for {ref!r} (give a file path or a session id)")


def open_session(cwd: Path, options: ShellOptions) -> tuple[SessionStore, str | None]:
    """The session the options ask for (``--session``, ``-c``, or a new one), and a note.

    With ``--no-session`` and ``-c``/``--session`` the file is read, never appended to.
    """
    persist = options.persist_session
    path: Path | None = None
    note = None
    if options.session:
        path = resolve_session(options.session, cwd)
    elif options.continue_session:
        path = find_latest_session(cwd)
        if path is None:
            note = "No previous session for this directory; starting a new one."
    if path is None:
        return SessionStore.create(cwd, persist=persist), note
    return SessionStore.open(path, persist=persist), note


class RestoringShell(Protocol):
    """What restoring a session uses of the shell."""

    @property
    def agent(self) -> Agent: ...
    @property
    def options(self) -> ShellOptions: ...
    def notify(self, text: str, level: Level = "info") -> None: ...
    def set_model(self, spec: str, *, record: bool = True) -> None: ...


def restore_session(shell: RestoringShell, store: SessionStore) -> None:
    """Messages (and the last model) from ``store`` into ``shell``; corrupt entries reported."""
    from pi_cli.shell.models.setup import ConfigError

    # Parsing finds bad entries and adds their warnings: parse first, then show them.
    shell.agent.replace_messages(store.build_context())
    change = store.latest("model_change")
    for warning in store.warnings:
        shell.notify(warning, "warning")
    if change and not shell.options.model and shell.options.stream_fn is None:
        try:
            shell.set_model(str(change["model"]), record=False)
        except (ConfigError, KeyError) as exc:
            shell.notify(f"Could not restore model {change.get('model')}: {exc}", "warning")
