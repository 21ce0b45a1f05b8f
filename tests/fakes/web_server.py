"""A small web server on loopback for web_fetch tests: saved real pages and hostile answers.

Routes (``server.url(path)``):

- ``/page/<name>``: a page of ``tests/fixtures/web/<name>.html.gz`` as ``text/html``
- ``/gzip/<name>``: the same page sent gzip-compressed (``Content-Encoding: gzip``)
- ``/bare/<name>``: the same page with no ``Content-Type`` at all
- ``/text``, ``/json``, ``/latin1``: plain text, JSON, ISO-8859-1 text
- ``/pdf``: a small PDF document; ``/image``: a PNG
- ``/big``: a 50 MB ``text/plain`` body, streamed (``big_bytes_sent`` counts what went out)
- ``/bomb``: gzip that inflates to 256 MB of spaces (``text/plain``)
- ``/redirect?to=URL``: HTTP 302 to ``URL``; ``/loop``: redirects to itself for ever
- ``/status/<code>``: that status with a short HTML body
- ``/hang``: headers, then nothing until the server stops
"""

from __future__ import annotations

import gzip
import json
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "web"
BIG_BYTES = 50 * 1024 * 1024
PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
)
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def page(name: str) -> bytes:
    """The saved HTML of one fixture page."""
    return gzip.decompress((FIXTURES / f"{name}.html.gz").read_bytes())


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        path, query = parts.path, parse_qs(parts.query)
        fake = self.server.fake
        fake.requests.append({"path": self.path, "headers": dict(self.headers)})
        if path.startswith("/page/"):
            self._send(200, page(path.removeprefix("/page/")), "text/html; charset=utf-8")
        elif path.startswith("/gzip/"):
            body = gzip.compress(page(path.removeprefix("/gzip/")))
            self._send(200, body, "text/html; charset=utf-8", {"Content-Encoding": "gzip"})
        elif path.startswith("/bare/"):
            self._send(200, page(path.removeprefix("/bare/")), None)
        elif path == "/text":
            self._send(200, b"line one\nline two\n", "text/plain")
        elif path == "/json":
            self._send(200, json.dumps({"name": "pi", "ok": True}).encode(), "application/json")
        elif path == "/latin1":
            self._send(
                200, "caf\xe9 cr\xe8me\n".encode("latin-1"), "text/plain; charset=iso-8859-1"
            )
        elif path == "/pdf":
            self._send(200, PDF, "application/pdf")
        elif path == "/image":
            self._send(200, PNG, "image/png")
        elif path == "/big":
            self._big()
        elif path == "/bomb":
            self._bomb()
        elif path == "/redirect":
            self._send(302, b"moved", "text/plain", {"Location": query["to"][0]})
        elif path == "/loop":
            self._send(302, b"again", "text/plain", {"Location": "/loop"})
        elif path.startswith("/status/"):
            code = int(path.removeprefix("/status/"))
            self._send(code, b"<html><body><h1>Nope</h1></body></html>", "text/html")
        elif path == "/hang":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", "100")
            self.end_headers()
            fake.stop_event.wait()
        else:
            self._send(404, b"no such page", "text/plain")

    def _send(
        self,
        status: int,
        body: bytes,
        content_type: str | None,
        headers: dict[str, str] | None = None,
    ) -> None:
        try:
            self.send_response(status)
            if content_type is not None:
                self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            self.close_connection = True

    def _big(self) -> None:
        chunk = (b"x" * 1023 + b"\n") * 64  # 64 KiB of 1 KiB lines
        fake = self.server.fake
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(BIG_BYTES))
            self.end_headers()
            sent = 0
            while sent < BIG_BYTES and not fake.stop_event.is_set():
                self.wfile.write(chunk)
                sent += len(chunk)
                fake.big_bytes_sent = sent
        except OSError:  # the client hung up after its cap: expected
            self.close_connection = True

    def _bomb(self) -> None:
        self._send(200, _bomb(), "text/plain", {"Content-Encoding": "gzip"})


_BOMB: list[bytes] = []


def _bomb() -> bytes:
    """gzip of 256 MB of spaces (about 250 KB), made once per process."""
    if not _BOMB:
        compressor = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
        block = b" " * (1024 * 1024)
        _BOMB.append(b"".join(compressor.compress(block) for _ in range(256)) + compressor.flush())
    return _BOMB[0]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    fake: WebServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients hanging up mid-body is what several tests do on purpose


class WebServer:
    """The server, started in a thread: ``with WebServer() as web: web.url("/text")``."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.big_bytes_sent = 0
        self.stop_event = threading.Event()
        self._http = _Server(("127.0.0.1", 0), _Handler)
        self._http.fake = self
        self.port = int(self._http.server_address[1])
        self._thread = threading.Thread(target=self._http.serve_forever, args=(0.05,), daemon=True)

    @property
    def address(self) -> str:
        """``127.0.0.1:PORT``: the allow-list entry that lets web_fetch reach this server only."""
        return f"127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        """The full URL of ``path`` on this server."""
        return f"http://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> WebServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop_event.set()
        self._http.shutdown()
        self._http.server_close()
        self._thread.join(timeout=5)
