"""A model-list server on 127.0.0.1: canned ``GET`` answers per path, or a hang (slow server)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


class ModelListServer(ThreadingHTTPServer):
    """Answers ``GET`` with ``routes[path]`` (status, body); status 0 hangs until released."""

    daemon_threads = True
    routes: dict[str, tuple[int, bytes]]
    seen: list[tuple[str, dict[str, str]]]
    release: threading.Event

    def base(self, path: str = "/v1") -> str:
        """``http://127.0.0.1:PORT`` + ``path``."""
        return f"http://127.0.0.1:{self.server_address[1]}{path}"


class _Handler(BaseHTTPRequestHandler):
    server: ModelListServer

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # stdlib naming
        self.server.seen.append((self.path, dict(self.headers)))
        status, body = self.server.routes.get(self.path, (404, b'{"error": "no route"}'))
        if status == 0:  # hang until the test ends
            self.server.release.wait(30)
            return
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass  # the client stopped reading (a too large answer)


@pytest.fixture
def model_list_server() -> Iterator[ModelListServer]:
    """A server on 127.0.0.1 with no routes yet; stopped (hung requests released) after."""
    httpd = ModelListServer(("127.0.0.1", 0), _Handler)
    httpd.routes, httpd.seen, httpd.release = {}, [], threading.Event()
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.release.set()
    httpd.shutdown()
    httpd.server_close()
