"""Branching: the session tree for a ``/tree`` picker, moving the leaf, and ``/fork``.

Moving the leaf keeps everything in the same file: new entries attach under the chosen entry,
so the old branch stays intact beside the new one. Forking copies the path to an entry into a
new session file whose header names the parent session.
"""

from __future__ import annotations

from pathlib import Path

from pi_cli.shell.commands import CommandResult, ShellAPI, SlashCommand
from pi_cli.shell.context import ShellContext
from pi_cli.shell.session.store import EntryRef, SessionError, SessionStore
from pi_cli.shell.session.tree import TreeEntry, format_tree, text_of, tree_entries
from pi_cli.shell.wire.jsonl import dumps_line

__all__ = [
    "TreeEntry",
    "branching_commands",
    "fork",
    "fork_before",
    "fork_points",
    "navigate_to",
    "tree_entries",
]


def navigate_to(shell: ShellContext, entry_id: str) -> str | None:
    """Move the leaf to ``entry_id`` and rebuild the agent's messages.

    Selecting a user message puts the leaf at its parent and returns the message text (for the
    editor, to edit and resend); any other entry becomes the leaf and ``None`` is returned.
    """
    shell.ensure_idle("move in the session tree")
    session = shell.session
    ref = session.entries.get(entry_id)
    if ref is None:
        raise SessionError(f"No entry {entry_id} in this session")
    text: str | None = None
    target: str | None = entry_id
    if ref.type == "message":
        data = session.read_entry(entry_id) or {}
        message = data.get("message") or {}
        if message.get("role") == "user":
            text = text_of(message.get("content"))
            target = ref.parent_id
    session.set_leaf(target)
    shell.adopt_session(session, "tree")
    return text


def fork(shell: ShellContext, entry_id: str | None = None) -> Path:
    """Copy the path to ``entry_id`` (default: the leaf) into a new session file and switch to it."""
    shell.ensure_idle("fork")
    old = shell.session
    if entry_id is not None and entry_id not in old.entries:
        raise SessionError(f"No entry {entry_id} in this session")
    return _fork_path(shell, old.path_to(entry_id))


def fork_points(shell: ShellContext) -> list[tuple[str, str]]:
    """``(entry id, text)`` of each user message of the session, every branch (as pi lists them)."""
    session = shell.session
    refs = [session.entries[i] for i in session.order if session.entries[i].type == "message"]
    points: list[tuple[str, str]] = []
    for data in session.iter_entries(refs):
        message = data.get("message") or {}
        text = text_of(message.get("content")) if isinstance(message, dict) else ""
        if isinstance(message, dict) and message.get("role") == "user" and text:
            points.append((str(data.get("id")), text))
    return points


def fork_before(shell: ShellContext, entry_id: str) -> tuple[Path, str]:
    """pi's fork: a new session holding the path *before* user message ``entry_id``.

    Returns the new file and the message's text (for the editor, to edit and send again).
    """
    shell.ensure_idle("fork")
    session = shell.session
    ref = session.entries.get(entry_id)
    data = session.read_entry(entry_id) if ref is not None else None
    message = (data or {}).get("message")
    if ref is None or not isinstance(message, dict) or message.get("role") != "user":
        raise SessionError(f"No user message {entry_id} in this session to fork from")
    refs = session.path_to(ref.parent_id) if ref.parent_id is not None else []
    return _fork_path(shell, refs), text_of(message.get("content"))


def _fork_path(shell: ShellContext, refs: list[EntryRef]) -> Path:
    old = shell.session
    if old.path is None or not old.persist or old.write_error:
        raise SessionError("Cannot fork a session that is not saved (--no-session)")
    new = SessionStore.create(shell.cwd, directory=old.path.parent, parent_session=str(old.path))
    assert new.path is not None
    new.path.parent.mkdir(parents=True, exist_ok=True)
    try:
        source = old.path.open("rb")
    except FileNotFoundError:  # a fresh session: its file is written with the first entry
        raise SessionError("Nothing to fork yet: the session has no entries") from None
    with source, new.path.open("wb") as target:
        target.write(dumps_line(new.header.to_json()))
        for ref in refs:  # raw lines: ids and parent ids stay valid in the copy
            source.seek(ref.offset)
            line = source.read(ref.length)
            target.write(line if line.endswith(b"\n") else line + b"\n")
    shell.adopt_session(SessionStore.open(new.path), "fork")
    return new.path


async def _tree(shell: ShellAPI, args: str) -> CommandResult:
    if args.strip():
        try:
            text = shell.navigate_to(args.strip())
        except SessionError as exc:
            return CommandResult(output=str(exc), error=True)
        suffix = f"\nEdit and resend: {text}" if text else ""
        return CommandResult(output=f"Moved to {shell.session.leaf_id or 'the start'}.{suffix}")
    return CommandResult(output=format_tree(shell.tree_entries()), action="pick_tree")


async def _fork(shell: ShellAPI, args: str) -> CommandResult:
    try:
        path = shell.fork(args.strip() or None)
    except SessionError as exc:
        return CommandResult(output=str(exc), error=True)
    return CommandResult(output=f"Forked to {path}")


def branching_commands() -> list[SlashCommand]:
    """``/tree`` and ``/fork``."""
    return [
        SlashCommand(
            "tree",
            "Show the session tree; /tree <id> continues from an earlier entry",
            _tree,
            usage="[entry id]",
        ),
        SlashCommand(
            "fork",
            "Copy the conversation (up to an entry) into a new session file",
            _fork,
            usage="[entry id]",
        ),
    ]
