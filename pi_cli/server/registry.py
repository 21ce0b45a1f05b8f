"""``sessions.json``: the sessions a server hosts, so a restarted server lists and reopens them.

Written (atomically, 0600) when a session opens, closes, changes id, or becomes busy or idle,
on a thread of its own (a rename can take milliseconds on a busy disk: never on the event loop
that streams every session), and once more when the server stops; never holds a key. A session whose run was live when the server stopped (killed, crashed, the
machine rebooted) is listed as ``interrupted`` after a restart; attaching reopens it from its
session file, whose durable queue comes back to that client as in any resumed session.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pi_cli.server.paths import server_dir, write_private

log = logging.getLogger("pi_cli.server")
VERSION = 1


def registry_path() -> Path:
    """``$PI_HOME/server/sessions.json``."""
    return server_dir() / "sessions.json"


class Registry:
    """Entries by session id: ``{open, sessionFile, cwd, title, model, running, lastActivity}``."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or registry_path()
        self.entries: dict[str, dict[str, Any]] = self._load()
        self._lock = threading.Lock()  # one writer at a time (the worker, the final save)
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pi-registry")
        self._queued = False
        self._taking = False  # a take of the text is scheduled for the loop's next turn
        self._latest = ""
        self._texts: dict[str, str] = {}  # each entry's JSON (``"id":{...}``) as last put

    def _load(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("ignoring %s: %s", self.path, exc)
            return {}
        sessions = data.get("sessions") if isinstance(data, dict) else None
        if not isinstance(sessions, dict):
            return {}
        return {
            key: value
            for key, value in sessions.items()
            if isinstance(key, str)
            and isinstance(value, dict)
            and isinstance(value.get("open"), dict)
        }

    def interrupted_at_start(self) -> list[str]:
        """Ids whose run was live when the last server stopped (marked, not running, now)."""
        found = [key for key, entry in self.entries.items() if entry.get("running")]
        for key in found:
            entry = self.entries[key]
            entry["running"] = False
            entry["interrupted"] = entry.get("interrupted") or (
                f"the server stopped while it ran ({time.strftime('%Y-%m-%d %H:%M', time.localtime(entry.get('lastActivity') or time.time()))})"
            )
        if found:
            self.save()
        return found

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Add or replace one entry (saved soon)."""
        self.entries[key] = entry
        self._texts[key] = _compact({key: entry})[1:-1]  # only this entry is serialised
        self.schedule()

    def drop(self, key: str) -> None:
        """Forget one entry (saved soon)."""
        self._texts.pop(key, None)
        if self.entries.pop(key, None) is not None:
            self.schedule()

    def schedule(self) -> None:
        """Save soon on the registry's own thread (now, without a running loop).

        Changes within one turn of the event loop are taken together: the text is made once,
        at the end of the turn, on the loop (the entries change only there), so 50 sessions
        starting at once cost one serialisation, not 50 of a growing file. The one writer
        thread writes the newest text it finds, in order, so a burst of changes costs one or
        two writes and the file never goes back to an older state."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.save()
            return
        if not self._taking:
            self._taking = True
            loop.call_soon(self._take, loop)

    def _take(self, loop: asyncio.AbstractEventLoop) -> None:
        self._taking = False
        if self._texts.keys() == self.entries.keys():  # each entry as it was put
            body = ",".join(self._texts.values())
            self._latest = f'{{"version":{VERSION},"sessions":{{{body}}}}}'
        else:  # changed in place since (a restart's marks): all of it again
            self._latest = self._text()
        if not self._queued:
            self._queued = True
            loop.run_in_executor(self._writer, self._write_latest)

    def _write_latest(self) -> None:
        self._queued = False
        self._write(self._latest)

    def save(self) -> None:
        """Write the file now (the server stops; a failure is logged: hosting goes on)."""
        self._latest = self._text()
        self._write(self._latest)

    def _text(self) -> str:
        self._texts = {key: _compact({key: entry})[1:-1] for key, entry in self.entries.items()}
        return _compact({"version": VERSION, "sessions": self.entries})

    def _write(self, text: str) -> None:
        with self._lock:
            try:
                write_private(self.path, text)
            except OSError as exc:
                log.warning("cannot write %s: %s", self.path, exc)


def _compact(data: dict[str, Any]) -> str:
    # json's C encoder (an indent means the pure-Python one, ~10x slower).
    return json.dumps(data, separators=(",", ":"))
