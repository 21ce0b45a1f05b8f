"""A small HTTP proxy on loopback: CONNECT tunnels and plain absolute-URI requests, recorded.

``refuse`` answers every request with that status (407 asks for credentials, 403 forbids);
``require_auth`` ("user:password") answers 407 unless ``Proxy-Authorization`` carries it.
Every request line is kept in ``requests`` (``CONNECT host:port`` or ``GET http://...``).
"""

from __future__ import annotations

import base64
import select
import socket
import socketserver
import threading
from typing import Any


class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self) -> None:
        head = self._read_head()
        if head is None:
            return
        line, headers = head
        self.server.owner.requests.append(line)
        owner = self.server.owner
        if owner.refuse is not None:
            self._answer(owner.refuse, "Refused by the test proxy")
            return
        if owner.require_auth is not None:
            token = base64.b64encode(owner.require_auth.encode()).decode()
            if headers.get("proxy-authorization") != f"Basic {token}":
                self._answer(407, "Proxy Authentication Required")
                return
        method, target, _ = (line.split(" ") + ["", ""])[:3]
        if method == "CONNECT":
            self._tunnel(target)
        else:
            self._forward(line, target, headers)

    def _read_head(self) -> tuple[str, dict[str, str]] | None:
        first = self.rfile.readline(65536).decode("latin-1").strip()
        if not first:
            return None
        headers: dict[str, str] = {}
        while True:
            raw = self.rfile.readline(65536).decode("latin-1")
            if raw in ("\r\n", "\n", ""):
                break
            name, _, value = raw.partition(":")
            headers[name.strip().lower()] = value.strip()
        self._headers = headers
        return first, headers

    def _answer(self, status: int, reason: str) -> None:
        body = reason.encode()
        self.wfile.write(
            f"HTTP/1.1 {status} {reason}\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n".encode()
            + body
        )

    def _tunnel(self, target: str) -> None:
        host, _, port = target.rpartition(":")
        try:
            name = self.server.owner.hosts.get(host, host.strip("[]"))
            upstream = socket.create_connection((name, int(port)), timeout=10)
        except OSError:
            self._answer(502, "Bad Gateway")
            return
        self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        self.wfile.flush()
        _pipe(self.connection, upstream, self.server.owner.stop)

    def _forward(self, line: str, target: str, headers: dict[str, str]) -> None:
        from urllib.parse import urlsplit

        parts = urlsplit(target)
        try:
            name = self.server.owner.hosts.get(parts.hostname or "", parts.hostname or "")
            upstream = socket.create_connection((name, parts.port or 80), timeout=10)
        except OSError:
            self._answer(502, "Bad Gateway")
            return
        method = line.split(" ")[0]
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        head = [f"{method} {path} HTTP/1.1"]
        head += [f"{k}: {v}" for k, v in headers.items() if not k.startswith("proxy-")]
        upstream.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1"))
        length = int(headers.get("content-length") or 0)
        if length:  # the body the client sent with its head (read whole: it is buffered here)
            upstream.sendall(self.rfile.read(length))
        _pipe(self.connection, upstream, self.server.owner.stop)


def _pipe(a: socket.socket, b: socket.socket, stop: threading.Event) -> None:
    for sock in (a, b):  # relay each small SSE write at once (no Nagle / delayed-ACK stalls)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        while not stop.is_set():
            ready, _, _ = select.select([a, b], [], [], 0.2)
            for sock in ready:
                data = sock.recv(65536)
                if not data:
                    return
                (b if sock is a else a).sendall(data)
    except OSError:
        return
    finally:
        b.close()


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: FakeProxy


class FakeProxy:
    """``with FakeProxy() as proxy: proxy.url`` -> ``http://127.0.0.1:PORT``."""

    def __init__(
        self,
        *,
        refuse: int | None = None,
        require_auth: str | None = None,
        hosts: dict[str, str] | None = None,
    ) -> None:
        self.hosts = dict(hosts or {})  # names the proxy resolves itself (to loopback)
        self.refuse = refuse
        self.require_auth = require_auth
        self.requests: list[str] = []
        self.stop = threading.Event()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> FakeProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
