"""Which entries make the model's context: the path to the leaf, from the last compaction on."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agent_core import Message, message_from_wire, user_message
from pi_cli.shell.session.bash_messages import bash_message_from_wire
from pi_cli.shell.session.index import EntryRef


def context_refs(
    entries: dict[str, EntryRef],
    leaf_id: str | None,
    read: Callable[[EntryRef], dict[str, Any] | None],
    stand_ins: Mapping[str, str] | None = None,
) -> tuple[list[EntryRef], dict[str, Any] | None]:
    """(entries of the context in order, the last compaction entry on the path or None).

    Walks back from the leaf only as far as needed: to the last compaction on the path and
    then to the entry it kept first, so a long session with compactions resumes without
    visiting (or parsing) its whole history.
    """
    refs: list[EntryRef] = []
    compaction: dict[str, Any] | None = None
    compaction_at = -1  # index in refs (reversed order) of the compaction entry
    first_kept: str | None = None
    current = leaf_id
    seen: set[str] = set()
    while current is not None and current in entries and current not in seen:
        seen.add(current)
        ref = entries[current]
        refs.append(ref)
        if compaction is None and ref.type == "compaction":
            entry = read(ref)
            if entry is not None:
                compaction, compaction_at = entry, len(refs) - 1
                first_kept = entry.get("firstKeptEntryId")
                if first_kept and stand_ins and first_kept not in entries:  # a lost line
                    first_kept = stand_ins.get(first_kept, first_kept)
                if not first_kept:
                    break
        elif compaction is not None and ref.id == first_kept:
            break
        current = ref.parent_id
    else:
        if compaction is not None:  # the kept entry is not an ancestor: start after it
            del refs[compaction_at + 1 :]
    refs.reverse()
    return refs, compaction


_SUMMARY_HEAD = (
    "The conversation history before this point was compacted into the following summary:\n\n"
)


def compaction_summary_message(summary: str) -> Message:
    """The user message that stands for compacted history."""
    return user_message(f"{_SUMMARY_HEAD}<summary>\n{summary}\n</summary>")


def compaction_summary_of(text: str) -> str | None:
    """The summary inside a :func:`compaction_summary_message` text (``None`` for other text)."""
    if not text.startswith(_SUMMARY_HEAD + "<summary>\n") or not text.endswith("\n</summary>"):
        return None
    return text[len(_SUMMARY_HEAD) + len("<summary>\n") : -len("\n</summary>")]


BRANCH_SUMMARY_PREFIX = (
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
)


def branch_summary_message(summary: str) -> Message:
    """The user message that stands for a branch left behind (pi's ``branchSummary``)."""
    return user_message(f"{BRANCH_SUMMARY_PREFIX}{summary}</summary>")


def entry_message(data: dict[str, Any]) -> Message | None:
    """The message a ``message`` entry puts into the context (``None``: none, e.g. ``!!cmd``).

    pi's ``bashExecution`` records (a command the user ran) become the user message the model
    reads; the others are parsed as they are (raises on an invalid one).
    """
    message = data["message"]
    if isinstance(message, dict) and message.get("role") == "bashExecution":
        return None if message.get("excludeFromContext") else bash_message_from_wire(message)
    return message_from_wire(message)
