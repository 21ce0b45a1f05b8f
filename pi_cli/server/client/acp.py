"""``pi --mode acp --attach``: an editor's ACP sessions living in ``pi serve``.

The same ACP agent as ``--mode acp`` (:class:`~pi_cli.modes.acp.mode.PiAgent`: the protocol,
the updates, approvals as ``session/request_permission``), with its sessions opened in the
server and driven through :class:`~pi_cli.server.client.remote.RemoteShell`: ``session/new``
opens one there, ``session/load`` and ``session/resume`` attach to one (a run going on
streams into the editor), ``session/list`` lists the server's, ``session/fork`` forks there,
``session/close`` and the editor going away leave the session (and its run) in the server.
Edits are made by the server's tools, not through the editor's buffers; MCP servers the editor
passes are not started (the session has its own).
"""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.modes.acp.mode import PiAgent, _serve
from pi_cli.modes.acp.sdk import RequestError
from pi_cli.modes.acp.sessions import Listed
from pi_cli.modes.acp.updates import AcpSession
from pi_cli.server.client.connect import ClientError, Http, ensure_server
from pi_cli.server.client.link import RemoteError
from pi_cli.server.client.remote import RemoteShell
from pi_cli.server.client.session import attach_remote, open_body

if TYPE_CHECKING:
    from pi_cli.args import LaunchArgs


def run_acp_attach(args: LaunchArgs) -> int:
    """Serve ACP on stdin/stdout with the sessions in the server; the exit code."""
    from pi_cli.args import ExitCode, error

    try:
        http = ensure_server(start=True)
    except ClientError as exc:
        error(str(exc))
        return ExitCode.ERROR
    try:
        asyncio.run(_serve(args, RemoteAcpAgent(args, http)))
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    finally:
        http.close()
    return ExitCode.OK


def _invalid(exc: Exception) -> RequestError:
    return RequestError.invalid_params({"message": str(exc)})


class RemoteAcpAgent(PiAgent):
    """The ACP agent whose sessions live in the server (see the module docstring)."""

    def __init__(self, args: LaunchArgs, http: Http) -> None:
        super().__init__(args)
        self.http = http
        self.remote: dict[str, RemoteShell] = {}

    def _import_session_machinery(self) -> None:
        """Nothing: the shells run in the server (this module imported what sessions use)."""

    async def _call(self, method: str, path: str, body: Any = None) -> Any:
        try:
            return await asyncio.to_thread(self.http.request, method, path, body)
        except ClientError as exc:
            raise _invalid(exc) from None

    async def _attach(self, session_id: str) -> AcpSession:
        try:
            shell = await attach_remote(self.http.where, session_id, "acp")
        except ClientError as exc:
            raise _invalid(exc) from None
        key = shell.session.session_id
        session = AcpSession(key, shell, self.conn)
        self.sessions[key] = session
        self.remote[key] = shell
        return session

    async def _open(self, cwd: str, session: str | None, servers: Any = None) -> AcpSession:
        if session is None:
            options = dataclasses.replace(self.args.shell, cwd=Path(cwd), session=None)
            opened = await self._call("POST", "/api/sessions", open_body(options))
            session = str(opened["id"])
        return await self._attach(session)

    async def _fork(self, session_id: str, cwd: str, servers: Any = None) -> AcpSession:
        forked = await self._call("POST", f"/api/sessions/{session_id}/fork")
        return await self._attach(str(forked["id"]))

    async def _listed(self, cwd: str | None) -> list[Listed]:
        data = await self._call("GET", "/api/sessions")
        here = str(Path(cwd).resolve()) if cwd else None
        return [
            Listed(
                s["id"],
                s["cwd"],
                s.get("name") or s.get("title") or "",
                float(s.get("lastActivity") or 0),
            )
            for s in data["sessions"]
            if here is None or s["cwd"] == here
        ]

    async def _release(self, session: AcpSession) -> None:
        """Leave the session: it (and its run) goes on in the server."""
        self.sessions.pop(session.session_id, None)
        self.remote.pop(session.session_id, None)
        await session.close()
        await session.shell.aclose()

    async def _request(self, session: AcpSession, command: dict[str, Any]) -> Any:
        try:
            return await self.remote[session.session_id].request(command, ordered=True)
        except RemoteError as exc:
            raise ValueError(str(exc)) from None

    async def _available_models(self, session: AcpSession) -> list[dict[str, Any]]:
        data = await self._request(session, {"type": "get_available_models"})
        return list(data.get("models", []))

    async def _set_mode(self, session: AcpSession, mode: str) -> None:
        await self._request(session, {"type": "set_permission_mode", "mode": mode})

    async def _set_model(self, session: AcpSession, spec: str) -> None:
        await self._request(session, {"type": "set_model", "model": spec})
