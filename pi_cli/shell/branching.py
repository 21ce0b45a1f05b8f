"""Branching: the session tree for a ``/tree`` picker, moving the leaf, and ``/fork``.

Moving the leaf keeps everything in the same file: new entries attach under the chosen entry,
so the old branch stays intact beside the new one. Forking copies the path to an entry into a
new session file whose header names the parent session.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.shell.events import SessionChanged
from pi_cli.shell.jsonl import dumps_line
from pi_cli.shell.session_store import SessionError, SessionStore
from pi_cli.shell.slash_commands import CommandResult, SlashCommand

if TYPE_CHECKING:
    from pi_cli.shell.coding_agent import CodingAgent

PREVIEW_CHARS = 80


@dataclass
class TreeEntry:
    """One node of the session tree, in display order (depth-first, oldest child first).

    Attributes:
        id: entry id.
        parent_id: parent entry id (``None`` for a root).
        type: entry type (``message``, ``compaction``, ``model_change``...).
        preview: one line describing the entry.
        depth: indentation level; it grows only where the tree branches, so a linear
            conversation stays flat.
        is_leaf: the current leaf (where the next entry attaches).
        on_path: on the path from the root to the leaf (the active branch).
        role: message role for ``message`` entries.
    """

    id: str
    parent_id: str | None
    type: str
    preview: str
    depth: int
    is_leaf: bool
    on_path: bool
    role: str | None = None


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1] + "…"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def preview_of(data: dict[str, Any]) -> tuple[str, str | None]:
    """(one-line preview, role) of a raw entry."""
    kind = data.get("type")
    if kind == "message":
        message = data.get("message") or {}
        role = message.get("role")
        if role == "user":
            return "user: " + _one_line(_text_of(message.get("content"))), role
        if role == "assistant":
            content = message.get("content") or []
            calls = [
                b.get("name", "?")
                for b in content
                if isinstance(b, dict) and b.get("type") == "toolCall"
            ]
            text = _one_line(_text_of(content))
            if message.get("stopReason") in ("error", "aborted"):
                text = f"[{message.get('stopReason')}] {message.get('errorMessage') or text}"
            if calls:
                text = (text + " " if text else "") + "→ " + ", ".join(calls)
            return "assistant: " + _one_line(text), role
        if role == "toolResult":
            flag = " (error)" if message.get("isError") else ""
            return f"tool {message.get('toolName', '?')}{flag}: " + _one_line(
                _text_of(message.get("content"))
            ), role
        return f"{role}", role
    if kind == "compaction":
        return "[compaction] " + _one_line(str(data.get("summary", ""))), None
    if kind == "model_change":
        return f"[model] {data.get('model')}", None
    if kind == "thinking_level_change":
        return f"[thinking] {data.get('thinkingLevel')}", None
    return f"[{kind}]", None


def tree_entries(session: SessionStore) -> list[TreeEntry]:
    """The whole tree in display order (reads every entry once, in file order)."""
    refs = [session.entries[i] for i in session.order]
    children: dict[str | None, list[str]] = {}
    for ref in refs:
        parent = ref.parent_id if ref.parent_id in session.entries else None
        children.setdefault(parent, []).append(ref.id)
    previews: dict[str, tuple[str, str | None]] = {}
    for data in session.iter_entries(refs):
        previews[str(data.get("id"))] = preview_of(data)
    on_path = {ref.id for ref in session.path_to()}
    result: list[TreeEntry] = []
    # Iterative DFS: a long linear conversation must not hit the recursion limit.
    stack: list[tuple[str, int]] = [(i, 0) for i in reversed(children.get(None, []))]
    if len(children.get(None, [])) > 1:
        stack = [(i, 1) for i, _ in stack]
    while stack:
        entry_id, depth = stack.pop()
        ref = session.entries[entry_id]
        preview, role = previews.get(entry_id, ("[unreadable entry]", None))
        result.append(
            TreeEntry(
                entry_id,
                ref.parent_id,
                ref.type,
                preview,
                depth,
                entry_id == session.leaf_id,
                entry_id in on_path,
                role,
            )
        )
        kids = children.get(entry_id, [])
        child_depth = depth + 1 if len(kids) > 1 else depth
        stack.extend((kid, child_depth) for kid in reversed(kids))
    return result


def format_tree(entries: list[TreeEntry]) -> str:
    """A text rendering for front ends without a picker."""
    lines = []
    for entry in entries:
        marker = "*" if entry.is_leaf else ("|" if entry.on_path else " ")
        lines.append(f"{marker} {'  ' * entry.depth}{entry.id}  {entry.preview}")
    lines.append(
        "(* = leaf, | = active branch; /tree <id> moves the leaf, /fork [id] copies to a new file)"
    )
    return "\n".join(lines)


def navigate_to(shell: CodingAgent, entry_id: str) -> str | None:
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
            text = _text_of(message.get("content"))
            target = ref.parent_id
    session.set_leaf(target)
    shell.agent.replace_messages(session.build_context())
    shell.emit(
        SessionChanged(
            session_id=session.session_id,
            path=str(session.path) if session.path else None,
            reason="tree",
        )
    )
    return text


def fork(shell: CodingAgent, entry_id: str | None = None) -> Path:
    """Copy the path to ``entry_id`` (default: the leaf) into a new session file and switch to it."""
    shell.ensure_idle("fork")
    old = shell.session
    if old.path is None or not old.persist or old.write_error:
        raise SessionError("Cannot fork a session that is not saved (--no-session)")
    if entry_id is not None and entry_id not in old.entries:
        raise SessionError(f"No entry {entry_id} in this session")
    refs = old.path_to(entry_id)
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
    store = SessionStore.open(new.path)
    shell.session = store
    shell.agent.replace_messages(store.build_context())
    shell.emit(SessionChanged(session_id=store.session_id, path=str(new.path), reason="fork"))
    shell.hooks.session_start()  # like /new and /resume: hooks see every session they run in
    return new.path


async def _tree(shell: CodingAgent, args: str) -> CommandResult:
    if args.strip():
        try:
            text = shell.navigate_to(args.strip())
        except SessionError as exc:
            return CommandResult(output=str(exc), error=True)
        suffix = f"\nEdit and resend: {text}" if text else ""
        return CommandResult(output=f"Moved to {shell.session.leaf_id or 'the start'}.{suffix}")
    return CommandResult(output=format_tree(shell.tree_entries()), action="pick_tree")


async def _fork(shell: CodingAgent, args: str) -> CommandResult:
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
