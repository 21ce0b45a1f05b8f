"""The session tree as a picker or ``/tree`` shows it: entries in display order, one-line previews."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pi_cli.shell.models.usage import short_tokens
from pi_cli.shell.session.skill_text import skill_call_of
from pi_cli.shell.session.store import SessionStore

PREVIEW_CHARS = 80
ARGUMENT_CHARS = 40  # of a tool call's first argument in a preview
HIDDEN_TYPES = frozenset({"checkpoint", "label", "session_info"})
"""Bookkeeping entries the tree does not show (a label shows on the entry it names)."""


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
        label: the user's label on the entry (``/label``), if any.
    """

    id: str
    parent_id: str | None
    type: str
    preview: str
    depth: int
    is_leaf: bool
    on_path: bool
    role: str | None = None
    label: str | None = None


def one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= PREVIEW_CHARS else line[: PREVIEW_CHARS - 1] + "…"


def text_of(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def _long_running(data: dict[str, Any]) -> str:
    """``[goal met] the tests pass``, ``[loop] check the deploy``, ``[loop ended] ...``."""
    status = data.get("status")
    if data.get("type") == "schedule":
        state = "loop" if status == "active" else f"loop {status}"
        return f"[{state}] {one_line(str(data.get('prompt') or ''))}"
    condition = one_line(str(data.get("condition") or ""))
    return f"[goal {status}] {condition}" if condition else f"[goal {status}]"


def call_preview(block: dict[str, Any]) -> str:
    """``bash ls -la``, ``read src/app.py``: a tool call's name and its first text argument
    (the command, path, pattern or URL the tools take first), cut short."""
    name = str(block.get("name") or "?")
    arguments = block.get("arguments")
    if isinstance(arguments, dict):
        first = next((v for v in arguments.values() if isinstance(v, str) and v.strip()), None)
        if first is not None:
            words = " ".join(first.split())
            return f"{name} {words if len(words) <= ARGUMENT_CHARS else words[: ARGUMENT_CHARS - 1] + '…'}"
    return name


def compaction_preview(data: dict[str, Any]) -> str:
    """``[compaction of 48k tokens] The user is building …``: the summary's first words of
    prose (Markdown headings, table rules and list marks left out)."""
    tokens = data.get("tokensBefore")
    size = f" of {short_tokens(tokens)} tokens" if isinstance(tokens, int) and tokens > 0 else ""
    prose = []
    for line in str(data.get("summary", "")).splitlines():
        words = line.strip().lstrip("#>*-+ ").strip().strip("|").replace("|", " ")
        if words and not set(words) <= set("-:= "):
            prose.append(words)
    return f"[compaction{size}] " + one_line(" ".join(prose))


def _assistant_preview(message: dict[str, Any]) -> str:
    content = message.get("content") or []
    calls = [
        call_preview(b) for b in content if isinstance(b, dict) and b.get("type") == "toolCall"
    ]
    text = one_line(text_of(content))
    if message.get("stopReason") in ("error", "aborted"):
        text = f"[{message.get('stopReason')}] {message.get('errorMessage') or text}"
    if calls:
        text = (text + " " if text else "") + "→ " + ", ".join(calls)
    return "assistant: " + one_line(text)


def message_preview(message: dict[str, Any]) -> tuple[str, str | None]:
    """(one-line preview, role) of a message entry's message."""
    role = message.get("role")
    if role == "user":
        text = text_of(message.get("content"))
        call = skill_call_of(text)
        return "user: " + one_line(call[0] if call else text), role
    if role == "assistant":
        return _assistant_preview(message), role
    if role == "toolResult":
        flag = " (error)" if message.get("isError") else ""
        text = one_line(text_of(message.get("content")))
        return f"tool {message.get('toolName', '?')}{flag}: {text}", role
    if role == "bashExecution":  # the user's own ``!cmd``
        code = message.get("exitCode")
        failed = f" (exit {code})" if isinstance(code, int) and code != 0 else ""
        return f"you ran: $ {one_line(str(message.get('command', '')))}{failed}", role
    return f"{role}", role


def preview_of(data: dict[str, Any]) -> tuple[str, str | None]:
    """(one-line preview, role) of a raw entry."""
    kind = data.get("type")
    if kind == "message":
        return message_preview(data.get("message") or {})
    if kind == "compaction":
        return compaction_preview(data), None
    if kind == "model_change":
        return f"[model] {data.get('model')}", None
    if kind == "thinking_level_change":
        return f"[thinking] {data.get('thinkingLevel')}", None
    if kind in ("goal", "schedule"):
        return _long_running(data), None
    if kind == "branch_summary":
        summary = str(data.get("summary", "")).split("\n\n", 1)[-1]
        return "[branch summary] " + one_line(summary), None
    return f"[{kind}]", None


def labels(store: SessionStore) -> dict[str, str]:
    """The current label of each labelled entry (later label entries win)."""
    refs = [store.entries[i] for i in store.order if store.entries[i].type == "label"]
    found: dict[str, str] = {}
    for data in store.iter_entries(refs):
        target, label = data.get("targetId"), data.get("label")
        if not isinstance(target, str):
            continue
        if isinstance(label, str) and label.strip():
            found[target] = label.strip()
        else:
            found.pop(target, None)
    return found


def _visible(session: SessionStore, entry_id: str | None) -> str | None:
    """``entry_id``, or its nearest ancestor the tree shows."""
    seen: set[str] = set()
    while entry_id is not None and entry_id in session.entries and entry_id not in seen:
        seen.add(entry_id)
        ref = session.entries[entry_id]
        if ref.type not in HIDDEN_TYPES:
            return entry_id
        entry_id = ref.parent_id
    return None


def tree_entries(session: SessionStore) -> list[TreeEntry]:
    """The whole tree in display order (reads every entry once, in file order).

    Bookkeeping entries (checkpoints, labels, names) are left out; their children hang from
    their nearest shown ancestor, and a label shows on the entry it names.
    """
    refs = [session.entries[i] for i in session.order]
    children: dict[str | None, list[str]] = {}
    for ref in refs:
        if ref.type in HIDDEN_TYPES:
            continue
        parent = _visible(session, ref.parent_id)
        children.setdefault(parent, []).append(ref.id)
    previews: dict[str, tuple[str, str | None]] = {}
    for data in session.iter_entries([r for r in refs if r.type not in HIDDEN_TYPES]):
        previews[str(data.get("id"))] = preview_of(data)
    marks = labels(session)
    leaf = _visible(session, session.leaf_id)
    on_path = {ref.id for ref in session.path_to(leaf)} if leaf else set()
    result: list[TreeEntry] = []
    # Iterative DFS: a long linear conversation must not hit the recursion limit.
    stack: list[tuple[str, int]] = [(i, 0) for i in reversed(children.get(None, []))]
    if len(children.get(None, [])) > 1:
        stack = [(i, 1) for i, _ in stack]
    while stack:
        entry_id, depth = stack.pop()
        ref = session.entries[entry_id]
        preview, role = previews.get(entry_id, ("[unreadable entry]", None))
        label = marks.get(entry_id)
        result.append(
            TreeEntry(
                entry_id,
                _visible(session, ref.parent_id),
                ref.type,
                f"[{label}] {preview}" if label else preview,
                depth,
                entry_id == leaf,
                entry_id in on_path,
                role,
                label,
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
