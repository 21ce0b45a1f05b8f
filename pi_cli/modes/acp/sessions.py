"""ACP's session methods: ``session/list``, ``session/resume``, ``session/close`` and
``session/fork`` (``session/new`` and ``session/load`` are in :mod:`.mode`).

Written against the agent's hooks (:class:`SessionHost`: ``_open``, ``_fork``, ``_listed``,
``_release``), so the
same methods serve sessions pi runs here (``--mode acp``) and sessions living in ``pi serve``
(``--mode acp --attach``): ``list`` pages through pi's sessions of a workspace (or of every
workspace), newest first; ``resume`` opens one without replaying it; ``close`` ends the ACP
session (here: the shell closes; attached: the session goes on in the server); ``fork`` starts
a new session from another's conversation.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.modes.acp.sdk import RequestError, schema
from pi_cli.shell import list_sessions, pi_home, sessions_dir

if TYPE_CHECKING:
    from pi_cli.modes.acp.updates import AcpSession

PAGE = 50
"""Sessions per ``session/list`` page."""


class Listed:
    """One session as ``session/list`` shows it."""

    def __init__(self, session_id: str, cwd: str, title: str, modified: float) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.title = title
        self.modified = modified

    def info(self) -> schema.SessionInfo:
        """ACP's shape."""
        when = _dt.datetime.fromtimestamp(self.modified, _dt.UTC).isoformat().replace("+00:00", "Z")
        return schema.SessionInfo(
            session_id=self.session_id, cwd=self.cwd, title=self.title or None, updated_at=when
        )


def local_sessions(cwd: str | None) -> list[Listed]:
    """pi's session files of ``cwd`` (every workspace's without one), newest first."""
    base = pi_home() / "sessions"
    directories = (
        [sessions_dir(Path(cwd))] if cwd else sorted(p for p in base.glob("*") if p.is_dir())
    )
    found: list[Listed] = []
    for directory in directories:
        for info in list_sessions(directory):
            where = cwd or _cwd_of(info.path)
            if where:
                found.append(Listed(info.session_id, where, info.name or info.title, info.modified))
    return sorted(found, key=lambda s: -s.modified)


def _cwd_of(path: Path) -> str | None:
    """The workspace a session file belongs to (its header line says)."""
    try:
        with path.open(encoding="utf-8") as handle:
            header = json.loads(handle.readline())
    except (OSError, ValueError):
        return None
    cwd = header.get("cwd") if isinstance(header, dict) else None
    return cwd if isinstance(cwd, str) else None


class SessionHost(Protocol):
    """What the methods use of the agent (its hooks differ where the sessions live)."""

    sessions: dict[str, AcpSession]

    async def _listed(self, cwd: str | None) -> list[Listed]: ...
    async def _open(self, cwd: str, session: str | None, servers: Any = None) -> AcpSession: ...
    async def _fork(self, session_id: str, cwd: str, servers: Any = None) -> AcpSession: ...
    async def _release(self, session: AcpSession) -> None: ...
    def _ready(self, session: AcpSession) -> None: ...
    def _state(self, session: AcpSession, models: list[str] | None = None) -> dict[str, Any]: ...


async def list_page(
    agent: SessionHost, cwd: str | None, cursor: str | None
) -> schema.ListSessionsResponse:
    """``session/list``: a page of sessions, newest first; ``cursor`` is where the last ended."""
    start = _offset(cursor)
    listed = await agent._listed(cwd)
    page = listed[start : start + PAGE]
    more = start + PAGE < len(listed)
    return schema.ListSessionsResponse(
        sessions=[item.info() for item in page], next_cursor=str(start + PAGE) if more else None
    )


async def resume(
    agent: SessionHost, session_id: str, cwd: str, servers: Any
) -> schema.ResumeSessionResponse:
    """``session/resume``: open ``session_id`` (no replay: the client has its history)."""
    session = agent.sessions.get(session_id)
    if session is None:
        session = await agent._open(cwd, session_id, servers)
        if session.session_id != session_id:
            await agent._release(session)
            raise RequestError.invalid_params({"message": f"no pi session {session_id}"})
        agent._ready(session)
    return schema.ResumeSessionResponse(**agent._state(session))


async def close(agent: SessionHost, session_id: str) -> schema.CloseSessionResponse:
    """``session/close``: end the ACP session (an unknown one is closed already)."""
    session = agent.sessions.get(session_id)
    if session is not None:
        await agent._release(session)
    return schema.CloseSessionResponse()


async def fork(
    agent: SessionHost, session_id: str, cwd: str, servers: Any
) -> schema.ForkSessionResponse:
    """``session/fork``: a new session whose conversation is a copy of ``session_id``'s."""
    session = await agent._fork(session_id, cwd, servers)
    agent._ready(session)
    return schema.ForkSessionResponse(session_id=session.session_id, **agent._state(session))


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    try:
        value = int(cursor)
    except ValueError:
        raise RequestError.invalid_params({"message": f"bad cursor {cursor!r}"}) from None
    if value < 0:
        raise RequestError.invalid_params({"message": f"bad cursor {cursor!r}"})
    return value
