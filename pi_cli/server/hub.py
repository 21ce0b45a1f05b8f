"""The sessions one ``pi serve`` hosts: open, find, list, close; keep the registry current.

Live sessions are keyed by their pi session id (re-keyed when ``/new``, ``/resume`` or a fork
switches it). Sessions of the registry that are not loaded (after a restart) are listed as
``stored`` or ``interrupted`` and opened when a client attaches. A shell is built in a worker
thread, so opening a session never stalls the others' streams.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pi_cli.server.heap import Heap
from pi_cli.server.hosted import HostedSession, line_text
from pi_cli.server.notify import notify_waiting
from pi_cli.server.registry import Registry
from pi_cli.server.wire import SESSION_ID, OpenSession
from pi_cli.shell import (
    Notice,
    PermissionRequested,
    SessionChanged,
    Settings,
    ShellEvent,
    ShellStateChanged,
)

log = logging.getLogger("pi_cli.server")


class HubError(Exception):
    """A request the hub refuses; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class SessionHub:
    """Every session of one server.

    Args:
        settings: the user's settings (``server`` section).
        registry: where sessions are remembered.
        build: makes a shell from options (a test seam; default: the CodingAgent).
        heap: keeps the collector's pauses off the streams (``pi serve``'s; none in tests).
    """

    def __init__(
        self,
        settings: Settings,
        registry: Registry | None = None,
        build: Callable[[Any], Any] | None = None,
        heap: Heap | None = None,
    ) -> None:
        self.settings = settings
        self.registry = registry or Registry()
        self.sessions: dict[str, HostedSession] = {}
        self._opening: dict[str, asyncio.Future[HostedSession]] = {}
        self._build = build or _build_shell
        self._keys: dict[int, str] = {}  # id(hosted) -> the key it is listed under
        self.interrupted = set(self.registry.interrupted_at_start())
        self.changed = asyncio.Event()  # any session changed state (idle exit, web list)
        self.heap = heap

    # ------------------------------------------------------------------ opening

    async def open(self, body: OpenSession) -> HostedSession:
        """A new (or resumed) session with these options."""
        try:
            options = body.shell_options()
        except ValueError as exc:
            raise HubError(str(exc)) from None
        if body.session:
            live = self._live_by_ref(body.session)
            if live is not None:
                return live
        try:
            shell = await asyncio.to_thread(self._build, options)
        except _BUILD_ERRORS as exc:
            raise HubError(str(exc), 422) from None
        hosted = self._host(shell, body.stored())
        return hosted

    def _host(self, shell: Any, stored: dict[str, Any]) -> HostedSession:
        timeout = self.settings.server.approval_timeout_s
        shell.permissions.approval_timeout_s = timeout  # a person, not a program, answers here
        hosted = HostedSession(shell, self._event)
        hosted.stored_options = stored  # type: ignore[attr-defined]
        self.sessions[hosted.id] = hosted
        self._keys[id(hosted)] = hosted.id
        self._remember(hosted)
        self.changed.set()
        if self.heap is not None:
            self.heap.settle()  # the new shell's objects live as long as the session
        return hosted

    async def attachable(self, ref: str) -> HostedSession:
        """The live session ``ref`` names (an id or a unique prefix), reopened if only stored."""
        check_id(ref)
        live = self._live_by_ref(ref)
        if live is not None:
            return live
        key = self._stored_by_ref(ref)
        pending = self._opening.get(key)
        if pending is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future[HostedSession] = asyncio.get_running_loop().create_future()
        self._opening[key] = future
        try:
            hosted = await self._reopen(key)
            future.set_result(hosted)
            return hosted
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: nobody else may be waiting
            raise
        finally:
            self._opening.pop(key, None)

    async def _reopen(self, key: str) -> HostedSession:
        entry = self.registry.entries[key]
        stored = dict(entry["open"])
        path = entry.get("sessionFile")
        if not path or not Path(path).is_file():
            self.registry.drop(key)
            raise HubError(f"session {key}: its file is gone", 404)
        stored["session"] = path
        stored.pop("continue", None)
        try:
            body = OpenSession.model_validate(stored)
        except ValueError as exc:
            raise HubError(f"session {key}: cannot reopen it ({exc})", 422) from None
        hosted = await self.open(body)
        why = entry.get("interrupted")
        if why:
            hosted.interrupted = why
            text = (
                f"This session's run was interrupted: {why}. Its queue and conversation are kept."
            )
            hosted.greeting.insert(
                0, line_text(Notice(text=text, level="warning").model_dump(by_alias=True))
            )
        self.interrupted.discard(key)
        return hosted

    async def fork(self, ref: str) -> HostedSession:
        """A new session with the conversation of ``ref`` (live or stored) so far."""
        check_id(ref)
        live = self._live_by_ref(ref)
        if live is not None:
            stored, path = dict(getattr(live, "stored_options", {})), live.shell.session.path
            stored["cwd"] = str(live.shell.cwd)
        else:
            entry = self.registry.entries[self._stored_by_ref(ref)]
            stored, path = dict(entry["open"]), entry.get("sessionFile")
        if path is None or not Path(path).is_file():
            raise HubError(f"session {ref}: nothing to fork (no session file yet)", 404)
        stored.pop("continue", None)
        try:
            body = OpenSession.model_validate({**stored, "session": str(path)})
            options = body.shell_options()
        except ValueError as exc:
            raise HubError(f"session {ref}: cannot fork it ({exc})", 422) from None

        def build_forked() -> Any:
            shell = self._build(options)
            shell.fork()  # its own file with the conversation so far; the source is untouched
            return shell

        try:
            shell = await asyncio.to_thread(build_forked)
        except _BUILD_ERRORS as exc:
            raise HubError(str(exc), 422) from None
        return self._host(shell, {k: v for k, v in body.stored().items() if k != "session"})

    # ------------------------------------------------------------------ finding

    def _live_by_ref(self, ref: str) -> HostedSession | None:
        if ref in self.sessions:
            return self.sessions[ref]
        found = [h for key, h in self.sessions.items() if key.startswith(ref)]
        if len(found) > 1:
            raise HubError(f"{ref!r} names {len(found)} sessions: give more of the id", 409)
        return found[0] if found else None

    def _stored_by_ref(self, ref: str) -> str:
        keys = [k for k in self.registry.entries if k not in self.sessions]
        if ref in keys:
            return ref
        found = [k for k in keys if k.startswith(ref)]
        if not found:
            raise HubError(f"no session {ref!r} (pi ps lists them)", 404)
        if len(found) > 1:
            raise HubError(f"{ref!r} names {len(found)} sessions: give more of the id", 409)
        return found[0]

    def listing(self) -> list[dict[str, Any]]:
        """Live sessions first (newest activity first), then stored ones."""
        live = sorted(
            (h.summary() for h in self.sessions.values()),
            key=lambda s: -float(s["lastActivity"]),
        )
        stored = [
            _stored_summary(key, entry)
            for key, entry in sorted(
                self.registry.entries.items(), key=lambda kv: -float(kv[1].get("lastActivity", 0))
            )
            if key not in self.sessions
        ]
        return live + stored

    # ------------------------------------------------------------------ events

    def _event(self, hosted: HostedSession, event: ShellEvent) -> None:
        if isinstance(event, SessionChanged):
            old = self._keys.get(id(hosted))
            if old is not None and old != hosted.id:
                self.sessions.pop(old, None)
                self.registry.drop(old)
                if self.heap is not None:
                    self.heap.released()  # the file it left (and what was frozen of it)
            self.sessions[hosted.id] = hosted
            self._keys[id(hosted)] = hosted.id
            self._remember(hosted)
        elif isinstance(event, ShellStateChanged):
            if event.state in ("idle", "preparing"):
                self._remember(hosted)  # busy or idle: what a restart must know
            self.changed.set()
        elif isinstance(event, PermissionRequested):
            self.changed.set()
            if not hosted.clients:
                notify_waiting(self.settings, hosted.id, event)

    def _remember(self, hosted: HostedSession) -> None:
        shell = hosted.shell
        path = shell.session.path
        if path is None:
            return  # --no-session: nothing to reopen after a restart
        summary = hosted.summary()
        stored = dict(getattr(hosted, "stored_options", {}))
        stored["cwd"] = str(shell.cwd)
        self.registry.put(
            hosted.id,
            {
                "open": stored,
                "sessionFile": str(path),
                "cwd": str(shell.cwd),
                "title": summary["title"],
                "name": summary["name"],
                "model": shell.model_id,
                "cost": summary["cost"],
                "running": hosted.busy,
                "lastActivity": time.time(),
            },
        )

    # ------------------------------------------------------------------ closing

    @property
    def quiet(self) -> bool:
        """No session is handling an input (nobody's stream would wait for a pause)."""
        return not self._opening and all(not h.busy for h in self.sessions.values())

    @property
    def idle(self) -> bool:
        """No client, no input being handled, nothing opening: an on-demand server may stop."""
        return not self._opening and all(
            not h.clients and not h.busy and not h.waiting for h in self.sessions.values()
        )

    async def close(self, ref: str) -> str:
        """Close a live session (its run is aborted) and forget it; returns its id."""
        check_id(ref)
        hosted = self._live_by_ref(ref)
        if hosted is None:
            key = self._stored_by_ref(ref)
            self.registry.drop(key)
            return key
        key = hosted.id
        self.sessions.pop(key, None)
        self._keys.pop(id(hosted), None)
        self.registry.drop(key)
        await hosted.close()
        self.changed.set()
        if self.heap is not None:
            self.heap.released()
        return key

    async def aclose(self) -> None:
        """The server stops: every shell closes (a live run is aborted and stays listed as
        interrupted for the next server)."""
        live_runs = [h.id for h in self.sessions.values() if h.busy]
        for hosted in list(self.sessions.values()):
            try:
                await hosted.close()
            except Exception:  # the other sessions must close too (logged)
                log.exception("closing session %s failed", hosted.id)
        for key in live_runs:  # closing aborted them: the registry must still say so
            entry = self.registry.entries.get(key)
            if entry is not None:
                entry["running"] = True
        self.registry.save()
        self.sessions.clear()


def check_id(ref: str) -> None:
    """Refuse anything that is not a session id (or a prefix of one): never a path."""
    if not SESSION_ID.fullmatch(ref):
        raise HubError("not a session id", 400)


def _stored_summary(key: str, entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": key,
        "cwd": entry.get("cwd", ""),
        "sessionFile": entry.get("sessionFile"),
        "name": entry.get("name"),
        "title": entry.get("title", ""),
        "model": entry.get("model", ""),
        "state": "interrupted" if entry.get("interrupted") else "stored",
        "live": False,
        "waitingForApproval": 0,
        "approval": None,
        "cost": entry.get("cost", 0.0),
        "tokens": 0,
        "messages": 0,
        "clients": [],
        "createdAt": 0.0,
        "lastActivity": entry.get("lastActivity", 0.0),
        "runStartedAt": None,
        "interrupted": entry.get("interrupted"),
    }


def _build_shell(options: Any) -> Any:
    from pi_cli.shell import CodingAgent

    return CodingAgent(options)


def _build_errors() -> tuple[type[Exception], ...]:
    from pi_cli.shell import ConfigError, SessionError, SettingsError

    return (ConfigError, SettingsError, SessionError)


_BUILD_ERRORS = _build_errors()
