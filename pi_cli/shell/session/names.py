"""Session names (pi's ``session_info`` entries), automatic titles, and labels on tree entries
(pi's ``label`` entries: ``targetId`` + ``label``, an empty label clears it).

A name is the newest ``session_info`` entry anywhere in the file (as pi reads it); a session
without one is shown by its title: the first line of its first prompt, shortened.
"""

from __future__ import annotations

from pi_cli.shell.session.store import SessionError, SessionStore
from pi_cli.shell.session.tree import labels, text_of

__all__ = [
    "labels",
    "session_name",
    "set_label",
    "set_session_name",
    "short_title",
    "title_of",
]

TITLE_CHARS = 60
SESSION_INFO = "session_info"
LABEL = "label"


def session_name(store: SessionStore) -> str | None:
    """The session's name, if it was given one (``/name``, RPC ``set_session_name``)."""
    for entry_id in reversed(store.order):
        ref = store.entries[entry_id]
        if ref.type == SESSION_INFO:
            entry = store.read_entry(entry_id) or {}
            name = entry.get("name")
            return name.strip() or None if isinstance(name, str) else None
    return None


def set_session_name(store: SessionStore, name: str) -> str:
    """Name the session (an empty name clears it); returns the entry id."""
    return store.append(SESSION_INFO, name=" ".join(name.split()))


def short_title(text: str, limit: int = TITLE_CHARS) -> str:
    """A short title from a prompt: its first non-empty line, cut at a word if too long."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    line = " ".join(line.split())
    if len(line) <= limit:
        return line
    cut = line[: limit - 1].rsplit(" ", 1)[0]
    return (cut if len(cut) > limit // 2 else line[: limit - 1]) + "…"


def first_prompt(store: SessionStore) -> str:
    """The text of the first user message of the session ("" if none)."""
    refs = [store.entries[i] for i in store.order if store.entries[i].type == "message"]
    for data in store.iter_entries(refs):
        message = data.get("message") or {}
        if isinstance(message, dict) and message.get("role") == "user":
            text = text_of(message.get("content"))
            if text.strip():
                return text
    return ""


def title_of(store: SessionStore) -> str:
    """The name, else the automatic title from the first prompt."""
    return session_name(store) or short_title(first_prompt(store))


def set_label(store: SessionStore, target: str, label: str | None) -> str:
    """Label entry ``target`` (``None`` or "" clears); returns the label entry's id."""
    if target not in store.entries:
        raise SessionError(f"No entry {target} in this session")
    text = " ".join((label or "").split()) or None
    return store.append(LABEL, targetId=target, label=text)
