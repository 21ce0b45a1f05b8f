"""A fake GitHub / GitLab REST API on loopback: records every request, answers like the forge.

``server.requests`` holds ``(method, path, headers, json_body)``; POSTs answer 201 with an id;
``GET /api/v4/projects/<id>/merge_requests/<iid>`` answers the merge request's ``diff_refs``.
``server.fail_with`` makes every request answer that HTTP status.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # stdlib signature
        pass

    def _answer(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _record(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = json.loads(raw) if raw else None
        with self.server.lock:
            self.server.requests.append((self.command, self.path, dict(self.headers), body))
        return body

    def do_GET(self) -> None:
        self._record()
        if self.server.fail_with:
            self._answer(self.server.fail_with, {"message": "nope"})
        elif "/merge_requests/" in self.path:
            refs = {"base_sha": "b" * 40, "start_sha": "s" * 40, "head_sha": "h" * 40}
            self._answer(200, {"iid": 1, "diff_refs": refs})
        else:
            self._answer(404, {"message": "Not Found"})

    def do_POST(self) -> None:
        self._record()
        if self.server.fail_with:
            self._answer(self.server.fail_with, {"message": "Validation Failed"})
        else:
            self._answer(201, {"id": len(self.server.requests)})


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    requests: list[tuple[str, str, dict[str, str], Any]]
    lock: threading.Lock
    fail_with: int = 0


class FakeForgeApi:
    """``with FakeForgeApi() as api: api.url`` (``http://127.0.0.1:PORT``)."""

    def __init__(self) -> None:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.requests = []
        self._server.lock = threading.Lock()
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def requests(self) -> list[tuple[str, str, dict[str, str], Any]]:
        return list(self._server.requests)

    def fail(self, status: int) -> None:
        self._server.fail_with = status

    def __enter__(self) -> FakeForgeApi:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
