"""The sessions of a project for a picker: name or title, when, how big, and the text of their
prompts to search in; renaming and deleting one."""

from __future__ import annotations

import datetime as _dt
import logging
from dataclasses import dataclass
from pathlib import Path

from pi_cli.shell.session.names import session_name, set_session_name, short_title
from pi_cli.shell.session.store import SessionError, SessionStore
from pi_cli.shell.session.tree import text_of

SEARCH_CHARS = 20_000
"""How much prompt text per session the search looks at."""
log = logging.getLogger("pi_cli")


@dataclass
class SessionInfo:
    """One session file, as a picker shows it."""

    path: Path
    session_id: str
    name: str | None
    title: str
    modified: float
    size: int
    prompts: int
    search_text: str  # name, title and prompts, lower case

    def label(self) -> str:
        """``2026-11-30 14:02  name-or-title  (3 prompts)``."""
        when = _dt.datetime.fromtimestamp(self.modified).strftime("%Y-%m-%d %H:%M")
        shown = self.name or self.title or self.path.stem
        count = f"{self.prompts} prompt{'s' if self.prompts != 1 else ''}"
        return f"{when}  {shown}  ({count})"

    def matches(self, needle: str) -> bool:
        """Every word of ``needle`` occurs in the name, title or a prompt."""
        return all(word in self.search_text for word in needle.lower().split())


def describe_session(path: Path) -> SessionInfo:
    """Read what the picker needs of one file (raises SessionError, OSError)."""
    store = SessionStore.open(path, persist=False)
    prompts: list[str] = []
    seen = 0
    refs = [store.entries[i] for i in store.order if store.entries[i].type == "message"]
    for data in store.iter_entries(refs):
        message = data.get("message") or {}
        if isinstance(message, dict) and message.get("role") == "user":
            text = text_of(message.get("content"))
            if text.strip():
                prompts.append(text)
                seen += len(text)
                if seen > SEARCH_CHARS:
                    break
    name = session_name(store)
    title = short_title(prompts[0]) if prompts else ""
    stat = path.stat()
    search = " ".join([name or "", title, *prompts])[: SEARCH_CHARS * 2].lower()
    return SessionInfo(
        path, store.session_id, name, title, stat.st_mtime, stat.st_size, len(prompts), search
    )


def list_sessions(directory: Path) -> list[SessionInfo]:
    """The sessions in ``directory``, newest first (unreadable files skipped)."""
    if not directory.is_dir():
        return []
    found = []
    for path in directory.glob("*.jsonl"):
        try:
            found.append(describe_session(path))
        except (SessionError, OSError, ValueError):
            log.debug("cannot list session %s", path, exc_info=True)
    return sorted(found, key=lambda info: info.modified, reverse=True)


def rename_session(path: Path, name: str) -> None:
    """Give the session in ``path`` a name (appended as pi's ``session_info``)."""
    set_session_name(SessionStore.open(path), name)
