"""A fake LLM provider: OpenAI Chat Completions and Anthropic Messages over SSE, on loopback.

Python::

    with FakeProviderServer(script=[Turn(text="hi")]) as server:
        server.openai_base_url      # http://127.0.0.1:PORT/v1
        server.anthropic_base_url   # http://127.0.0.1:PORT
        server.requests             # received JSON bodies, in order

CLI (for subprocess / tmux tests)::

    python -m tests.fakes.provider_server --script script.json [--port 0] [--request-log FILE]

prints ``PORT=<n>`` as its first stdout line and serves until killed. Each request consumes one
turn; when the script runs out every request gets HTTP 500 "fake provider: script exhausted".
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.fakes.script import Turn, load_script
from tests.fakes.wire import anthropic_error, anthropic_events, openai_error, openai_events

EXHAUSTED = "fake provider: script exhausted"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else every small SSE write waits ~40 ms for a delayed ACK
    server: _HttpServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # keep test output clean

    # ------------------------------------------------------------------ routing

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            data = [
                {"id": m, "object": "model", "owned_by": "fake"} for m in self.server.fake.models
            ]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            self._send_json(400, {"error": {"message": "request body is not JSON"}})
            return
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/chat/completions"):
            kind = "openai"
        elif path.endswith("/messages"):
            kind = "anthropic"
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        fake = self.server.fake
        turn, index = fake._take(body, path, dict(self.headers))
        error_body = openai_error if kind == "openai" else anthropic_error
        if turn is None:
            self._send_json(
                500, error_body(500, f"{EXHAUSTED} after {index} turns", "script_exhausted")
            )
            return
        if turn.hang:
            fake._stop.wait()  # never answer; released only when the server stops
            self.close_connection = True
            return
        if turn.status is not None:
            message = turn.error_message or self._default_error(turn.status)
            headers = (
                {"Retry-After": f"{turn.retry_after:g}"} if turn.retry_after is not None else {}
            )
            self._send_json(turn.status, error_body(turn.status, message, turn.error_type), headers)
            return
        model = str(body.get("model", "fake-model"))
        events = (
            openai_events(turn, model, index)
            if kind == "openai"
            else anthropic_events(turn, model, index)
        )
        self._stream(turn, events)

    def _default_error(self, status: int) -> str:
        if status in (401, 403):
            # Real providers echo (part of) the key; echo all of it so tests can prove we hide it.
            key = self.headers.get("x-api-key") or self.headers.get(
                "Authorization", ""
            ).removeprefix("Bearer ")
            return f"Incorrect API key provided: {key}"
        if status == 429:
            return "Rate limit reached, slow down"
        if status == 529:
            return "Overloaded"
        return f"fake provider error {status}"

    # ------------------------------------------------------------------ writing

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            self.close_connection = True

    def _stream(self, turn: Turn, events: list[bytes]) -> None:
        stop = self.server.fake._stop
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i, event in enumerate(events):
                if turn.disconnect_after_chunks is not None and i >= turn.disconnect_after_chunks:
                    self._cut()
                    return
                if i > 0 and turn.chunk_delay_s > 0 and stop.wait(turn.chunk_delay_s):
                    self._cut()
                    return
                self._chunk(event)
                if i == 0 and turn.malformed_sse_line is not None:
                    self._chunk(turn.malformed_sse_line.encode() + b"\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:  # the client went away (abort): nothing to do
            self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _cut(self) -> None:
        """Drop the connection without finishing the chunked body (a real mid-stream disconnect)."""
        self.wfile.flush()
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    fake: FakeProviderServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):  # clients hanging up is normal here
            super().handle_error(request, client_address)


class FakeProviderServer:
    """Replays scripted turns over both wire protocols on one loopback port.

    Args:
        script: the turns, consumed one per POST request in order.
        port: 0 picks a free port.
        models: ids listed by ``GET /v1/models``.
        request_log: if set, each request body is appended to this file as one JSON line.
    """

    def __init__(
        self,
        script: list[Turn] | None = None,
        *,
        port: int = 0,
        models: list[str] | None = None,
        request_log: str | Path | None = None,
    ) -> None:
        self.script: list[Turn] = list(script or [])
        self.models = list(models or ["fake-model"])
        self.request_log = Path(request_log) if request_log else None
        self._port = port
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._requests: list[dict[str, Any]] = []
        self._paths: list[str] = []
        self._headers: list[dict[str, str]] = []
        self._times: list[float] = []
        self._served = 0
        self._http: _HttpServer | None = None
        self._bound_port: int | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> FakeProviderServer:
        """Bind and serve in a daemon thread."""
        self._stop.clear()
        self._http = _HttpServer(("127.0.0.1", self._port), _Handler)
        self._http.fake = self
        self._bound_port = int(self._http.server_address[1])
        self._thread = threading.Thread(
            target=self._http.serve_forever, args=(0.05,), name="fake-provider", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving; hanging or slow responses are released."""
        self._stop.set()
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeProviderServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ info

    @property
    def port(self) -> int:
        """The bound port (after :meth:`start`; still known after :meth:`stop`)."""
        assert self._bound_port is not None, "server not started"
        return self._bound_port

    @property
    def openai_base_url(self) -> str:
        """Base URL for OpenAI-compatible clients."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """Base URL for Anthropic clients (they add ``/v1/messages``)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Received JSON request bodies, in order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def request_paths(self) -> list[str]:
        """The URL path of each received request."""
        with self._lock:
            return list(self._paths)

    @property
    def request_headers(self) -> list[dict[str, str]]:
        """The headers of each received request."""
        with self._lock:
            return list(self._headers)

    @property
    def request_times(self) -> list[float]:
        """Wall-clock time (``time.time()``) each request arrived."""
        with self._lock:
            return list(self._times)

    @property
    def remaining(self) -> int:
        """Turns not yet served."""
        with self._lock:
            return len(self.script) - self._served

    def add(self, *turns: Turn) -> None:
        """Append turns to the script (also while serving)."""
        with self._lock:
            self.script.extend(turns)

    def _take(
        self, body: dict[str, Any], path: str, headers: dict[str, str]
    ) -> tuple[Turn | None, int]:
        with self._lock:
            self._requests.append(body)
            self._paths.append(path)
            self._headers.append(headers)
            self._times.append(time.time())
            if self.request_log is not None:
                with self.request_log.open("a") as log:
                    log.write(json.dumps(body) + "\n")
            index = self._served
            if index >= len(self.script):
                return None, index
            self._served += 1
            return self.script[index], index


def main(argv: list[str] | None = None) -> int:
    """CLI entry: serve a script file until killed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--script", required=True, help="JSON list of turns (or {'turns': [...]})")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument(
        "--request-log", default=None, help="append each request body as a JSON line"
    )
    args = parser.parse_args(argv)
    server = FakeProviderServer(
        load_script(args.script), port=args.port, request_log=args.request_log
    )
    server.start()
    print(f"PORT={server.port}", flush=True)
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
