"""Every request is checked before any route sees it: the host, the origin, then the token.

- **Host**: on TCP the ``Host`` header must name the address the server listens on (a loopback
  name: ``127.0.0.1``, ``localhost``, ``[::1]``, or the explicit ``--host``), so a web page
  that rebinds its own DNS name to 127.0.0.1 reaches nothing.
- **Origin**: a browser request carrying ``Origin`` (every WebSocket, every cross-site fetch)
  must come from the server's own origin; anything else, ``null`` included, is refused with 403.
- **Token**: ``Authorization: Bearer <token>``, or the ``pi_token`` cookie (HttpOnly,
  SameSite=Strict) the web client gets by opening ``/?token=<token>`` once (the token leaves
  the address bar by a redirect). A wrong or missing token is 401 (a WebSocket is refused
  during its handshake), compared in constant time.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

from pi_cli.server.token import TokenSource, same_token

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]
COOKIE = "pi_token"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")
SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]


def headers_of(scope: Scope) -> dict[str, str]:
    """The request headers, lower-case names (a repeated header: the last one)."""
    return {
        name.decode("latin-1").lower(): value.decode("latin-1")
        for name, value in scope.get("headers", [])
    }


def allowed_hosts(host: str | None, port: int | None) -> set[str]:
    """What the ``Host`` header may say for a TCP listener on ``host:port``."""
    names = set(LOOPBACK_NAMES)
    if host:
        names.add(f"[{host}]" if ":" in host and not host.startswith("[") else host)
    return {f"{name}:{port}" for name in names} | (names if port == 80 else set())


def request_token(scope: Scope, headers: dict[str, str]) -> str | None:
    """The token a request carries (header, then cookie; the query only for ``/``)."""
    auth = headers.get("authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    cookie = headers.get("cookie")
    if cookie:
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(cookie)
        except Exception:  # noqa: BLE001 - http.cookies raises its own CookieError and others
            jar = SimpleCookie()
        if COOKIE in jar:
            return jar[COOKIE].value
    if scope.get("path") == "/":
        raw: bytes = scope.get("query_string", b"")
        values = parse_qs(raw.decode("latin-1")).get("token")
        if values:
            return str(values[-1])
    return None


class Guard:
    """The ASGI middleware doing the three checks (see the module docstring).

    Args:
        app: what a request that passes reaches.
        tokens: the current token.
        hosts: allowed ``Host`` values for TCP (``None``: any, the Unix socket's case, where
            only this user can connect at all).
    """

    def __init__(self, app: App, tokens: TokenSource, hosts: set[str] | None) -> None:
        self.app = app
        self.tokens = tokens
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = headers_of(scope)
        problem = self.problem(scope, headers)
        if problem is None:
            scope.setdefault("state", {})["token"] = self.tokens.current()
            await self.app(scope, receive, send)
            return
        status, text = problem
        if scope["type"] == "websocket":
            await send(
                {
                    "type": "websocket.http.response.start",
                    "status": status,
                    "headers": _text_headers(),
                }
            )
            await send({"type": "websocket.http.response.body", "body": text.encode()})
            return
        await send({"type": "http.response.start", "status": status, "headers": _text_headers()})
        await send({"type": "http.response.body", "body": text.encode()})

    def problem(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str] | None:
        """Why the request is refused (status, text), or ``None``."""
        host = headers.get("host", "")
        on_tcp = scope.get("server") is not None and scope["server"][1] is not None
        if on_tcp and self.hosts is not None and host.lower() not in self.hosts:
            return 403, "pi: this server does not answer to that host name\n"
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in _own_origins(host):
            return 403, "pi: cross-origin requests are refused\n"
        if not same_token(request_token(scope, headers), self.tokens.current()):
            return 401, "pi: a valid token is required (see `pi serve --url`)\n"
        return None


def _own_origins(host: str) -> set[str]:
    host = host.lower()
    return {f"http://{host}", f"https://{host}"} if host else set()


def _text_headers() -> list[tuple[bytes, bytes]]:
    return [(b"content-type", b"text/plain; charset=utf-8"), *SECURITY_HEADERS]
