"""Reaching the server from a client (``pi ps``, ``pi attach``, ``pi --detach``, ACP ``--attach``).

The address is ``PI_SERVER_URL`` (``http://127.0.0.1:PORT``: a TCP server or a forwarded one),
else ``PI_SERVER_SOCKET``, else the socket of this ``PI_HOME``; the token is
``PI_SERVER_TOKEN``, else the token file. :func:`ensure_server` starts ``pi serve --on-demand``
in the background when nothing answers (never for an explicit remote address), and waits for
it; that server stops by itself once idle.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pi_cli.server.paths import TOKEN_ENV, URL_ENV, server_dir, socket_path

START_TIMEOUT_S = 20.0
HTTP_TIMEOUT_S = 30.0


class ClientError(Exception):
    """The server is unreachable or refused a request (a user-facing message)."""


class TokenRefused(ClientError):
    """A server answers, but not to this token (rotated, or another PI_HOME's)."""


@dataclass(frozen=True)
class ServerAddress:
    """Where the server is and the token to show it."""

    socket: Path | None
    url: str | None
    token: str

    @property
    def base(self) -> str:
        """The HTTP base URL (``http://localhost`` over the socket)."""
        return (self.url or "http://localhost").rstrip("/")

    @property
    def local(self) -> bool:
        """This PI_HOME's own server (which a client may start)."""
        return self.url is None and not os.environ.get("PI_SERVER_SOCKET")

    def headers(self) -> dict[str, str]:
        """The token header every request carries."""
        return {"Authorization": f"Bearer {self.token}"}

    def ws_uri(self, session_id: str, label: str) -> str:
        """The session's WebSocket address."""
        base = self.base.replace("http://", "ws://", 1).replace("https://", "wss://", 1)
        return f"{base}/api/sessions/{quote(session_id, safe='')}/ws?client={quote(label)}"


def address() -> ServerAddress:
    """This client's server address and token (the token file is created when missing)."""
    from pi_cli.server.token import TokenError, ensure_token

    url = os.environ.get(URL_ENV) or None
    token = os.environ.get(TOKEN_ENV)
    if not token:
        try:
            token = ensure_token()
        except (TokenError, OSError) as exc:
            raise ClientError(str(exc)) from None
    return ServerAddress(None if url else socket_path(), url, token)


class Http:
    """Plain requests to the server (httpx, over the Unix socket or TCP)."""

    def __init__(self, where: ServerAddress, timeout: float = HTTP_TIMEOUT_S) -> None:
        import httpx

        transport = httpx.HTTPTransport(uds=str(where.socket)) if where.socket else None
        self.where = where
        self.client = httpx.Client(
            base_url=where.base, transport=transport, headers=where.headers(), timeout=timeout
        )

    def close(self) -> None:
        """Close the connection pool."""
        self.client.close()

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """One request; its JSON answer (raises :class:`ClientError` on any failure)."""
        import httpx

        try:
            response = self.client.request(method, path, json=body)
        except httpx.TransportError as exc:
            raise ClientError(f"cannot reach the server: {exc}") from None
        if response.status_code == 401:
            raise TokenRefused(_problem(401, response.text))
        if response.status_code >= 400:
            raise ClientError(_problem(response.status_code, response.text))
        try:
            return response.json()
        except ValueError:
            raise ClientError(f"the server answered {response.status_code} without JSON") from None

    def alive(self) -> bool:
        """Whether a server answers (one that refuses this token raises :class:`TokenRefused`)."""
        try:
            self.request("GET", "/api/server")
        except TokenRefused:
            raise
        except ClientError:
            return False
        return True

    def command(self, session_id: str, command: dict[str, Any]) -> dict[str, Any]:
        """One RPC command on a session; its response line (a failure raises)."""
        answer = self.request("POST", f"/api/sessions/{quote(session_id, safe='')}/rpc", command)
        if not isinstance(answer, dict) or answer.get("success") is not True:
            error = answer.get("error") if isinstance(answer, dict) else answer
            raise ClientError(f"{command.get('type')}: {error}")
        return answer


def _problem(status: int, text: str) -> str:
    try:
        data = json.loads(text)
        message = data.get("error") if isinstance(data, dict) else None
    except ValueError:
        message = None
    if status == 401:
        return "the server refused the token (rotated? set PI_SERVER_TOKEN or use this PI_HOME)"
    return str(message or text.strip() or f"HTTP {status}")


def ensure_server(start: bool = True) -> Http:
    """A client of a running server; an on-demand one is started when none answers."""
    where = address()
    http = Http(where)
    try:
        if http.alive():
            return http
    except TokenRefused:
        http.close()
        raise
    if not start or not where.local:
        http.close()
        raise ClientError(f"no pi server answers at {where.url or where.socket}")
    start_on_demand()
    deadline = time.monotonic() + START_TIMEOUT_S
    delay = 0.02
    while time.monotonic() < deadline:
        if http.alive():
            return http
        time.sleep(delay)
        delay = min(delay * 2, 0.25)
    http.close()
    log = server_dir() / "server.log"
    raise ClientError(f"the server did not start in {START_TIMEOUT_S:.0f}s (see {log})")


def start_on_demand() -> None:
    """Start ``pi serve --on-demand`` detached from this terminal (its output: server.log)."""
    from pi_cli.secret_env import HELD

    env = {**os.environ, **HELD}  # the server needs the provider keys this pi holds
    argv = [sys.executable, "-m", "pi_cli.cli", "serve", "--on-demand"]
    from tools.sandbox import processes

    with open(server_dir() / "server.log", "ab") as log:
        # Kept: it must outlive this client (pi's exit sweep leaves it alone), in a session of
        # its own (no terminal's hang-up reaches it).
        processes.popen(
            argv,
            name="pi serve",
            keep=True,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            env=env,
            cwd=os.sep,
            close_fds=True,
        )
