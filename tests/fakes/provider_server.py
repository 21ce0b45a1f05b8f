"""A fake LLM provider: OpenAI Chat Completions and Responses, Anthropic Messages (SSE, loopback).

Python::

    with FakeProviderServer(script=[Turn(text="hi")]) as server:
        server.openai_base_url      # http://127.0.0.1:PORT/v1
        server.anthropic_base_url   # http://127.0.0.1:PORT
        server.requests             # received JSON bodies, in order

CLI (for subprocess / tmux tests)::

    python -m tests.fakes.provider_server --script script.json [--port 0] [--request-log FILE]

prints ``PORT=<n>`` as its first stdout line and serves until killed. Each request consumes one
turn; when the script runs out every request gets HTTP 500 "fake provider: script exhausted".

``routes`` (``{"routes": {KEY: [turns]}}`` in a script file) give concurrent conversations their
own scripts: a request whose first user message contains ``KEY`` takes its turn from that route
(sub-agents running in parallel each get theirs, whatever order their requests arrive in).
"""

from __future__ import annotations

import argparse
import json
import select
import signal
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.fakes.captures import load_capture
from tests.fakes.script import Turn, load_routes, load_script
from tests.fakes.validate import anthropic_problem, openai_problem
from tests.fakes.wire import (
    anthropic_error,
    anthropic_events,
    openai_error,
    openai_events,
    responses_events,
)

EXHAUSTED = "fake provider: script exhausted"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # else every small SSE write waits ~40 ms for a delayed ACK
    server: _HttpServer

    def log_message(self, format: str, *args: Any) -> None:  # stdlib signature
        pass  # keep test output clean

    # ------------------------------------------------------------------ routing

    def do_GET(self) -> None:  # stdlib naming
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            data = [
                {"id": m, "object": "model", "owned_by": "fake"} for m in self.server.fake.models
            ]
            self._send_json(200, {"object": "list", "data": data})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:  # stdlib naming
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
        elif path.endswith("/responses"):
            kind = "responses"
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        fake = self.server.fake
        error_body = anthropic_error if kind == "anthropic" else openai_error
        if fake.strict and kind != "responses":
            problem = (
                openai_problem(body, mistral=fake.mistral_ids)
                if kind == "openai"
                else anthropic_problem(body)
            )
            if problem is not None:  # rejected like the real API: no turn is used up
                fake._record(body, path, dict(self.headers))
                self._send_json(400, error_body(400, problem, "invalid_request_error"))
                return
        turn, index = fake._take(body, path, dict(self.headers))
        if turn is None:
            self._send_json(
                500, error_body(500, f"{EXHAUSTED} after {index} turns", "script_exhausted")
            )
            return
        if turn.hang:
            fake._stop.wait()  # never answer; released only when the server stops
            self.close_connection = True
            return
        if turn.redirect_to is not None:
            page = b"<html><body>Moved</body></html>"
            headers = {"Location": turn.redirect_to}
            self._send_bytes(302, page, "text/html; charset=utf-8", headers)
            return
        if turn.json_body is not None:
            data = json.dumps(turn.json_body, ensure_ascii=False).encode()
            self._send_bytes(turn.status or 200, data, turn.content_type or "application/json")
            return
        if turn.status is not None:
            message = turn.error_message or self._default_error(turn.status)
            headers = (
                {"Retry-After": f"{turn.retry_after:g}"} if turn.retry_after is not None else {}
            )
            self._send_json(turn.status, error_body(turn.status, message, turn.error_type), headers)
            return
        model = str(body.get("model", "fake-model"))
        if turn.raw is not None:
            events = [part.encode() for part in turn.raw]
        elif turn.capture is not None:
            events = load_capture(turn.capture)
        elif kind == "openai":
            events = openai_events(turn, model, index)
        elif kind == "responses":
            events = responses_events(turn, model, index)
        else:
            events = anthropic_events(turn, model, index)
        if turn.raw_chunk_bytes > 0:
            events = _resplit(events, turn.raw_chunk_bytes)
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
        self._send_bytes(status, data, "application/json", headers)

    def _send_bytes(
        self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
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
            self.send_header("Content-Type", turn.content_type or "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            if turn.first_byte_delay_s > 0 and stop.wait(turn.first_byte_delay_s):
                self._cut()
                return
            for i, event in enumerate(events):
                if turn.disconnect_after_chunks is not None and i >= turn.disconnect_after_chunks:
                    self._cut()
                    return
                if turn.reset_after_chunks is not None and i >= turn.reset_after_chunks:
                    self._reset()
                    return
                if turn.stall_after_chunks is not None and i == turn.stall_after_chunks:
                    self._stall(turn)
                if i > 0 and turn.chunk_delay_s > 0 and stop.wait(turn.chunk_delay_s):
                    self._cut()
                    return
                self._chunk(event)
                if i == 0 and turn.malformed_sse_line is not None:
                    self._chunk(turn.malformed_sse_line.encode() + b"\n\n")
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            self.server.fake._streamed(time.time())
        except OSError:  # the client went away (abort): nothing to do
            self.close_connection = True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _stall(self, turn: Turn) -> None:
        """Send nothing more (or only ``: ping`` comments) until the client or the server leaves."""
        stop = self.server.fake._stop
        interval = turn.ping_interval_s
        until = None if turn.stall_s is None else time.monotonic() + turn.stall_s
        while not stop.wait(interval if interval else 0.05):
            if until is not None and time.monotonic() >= until:
                return  # the stall is over: the stream goes on
            if interval:
                self._chunk(b": ping\n\n")  # raises OSError once the client has gone
            elif _peer_closed(self.connection):
                break
        self._cut()
        raise ConnectionAbortedError("stalled stream ended")

    def _reset(self) -> None:
        """Abort the connection with a TCP RST (SO_LINGER 0), as a crashed proxy does."""
        self.wfile.flush()
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()

    def _cut(self) -> None:
        """Drop the connection without finishing the chunked body (a real mid-stream disconnect)."""
        self.wfile.flush()
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _peer_closed(sock: socket.socket) -> bool:
    """True once the client closed its end (a readable socket with nothing to read)."""
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def _resplit(events: list[bytes], size: int) -> list[bytes]:
    """The same body cut into writes of ``size`` bytes (across events, lines and characters)."""
    body = b"".join(events)
    return [body[i : i + size] for i in range(0, len(body), size)]


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
        strict: reject requests the real APIs reject (HTTP 400; see ``tests.fakes.validate``):
            unpaired or duplicate tool-call ids, ids in a form the API refuses.
        mistral_ids: with ``strict``, OpenAI-wire requests must use Mistral's 9-character ids.
        tls: (certificate, key) files: serve HTTPS with them (``tests.fakes.tls``).
    """

    def __init__(
        self,
        script: list[Turn] | None = None,
        *,
        port: int = 0,
        models: list[str] | None = None,
        request_log: str | Path | None = None,
        strict: bool = False,
        mistral_ids: bool = False,
        routes: dict[str, list[Turn]] | None = None,
        tls: tuple[Path, Path] | None = None,
    ) -> None:
        self.tls = tls
        self.script: list[Turn] = list(script or [])
        self.routes: dict[str, list[Turn]] = {k: list(v) for k, v in (routes or {}).items()}
        self.routed: dict[str, int] = {key: 0 for key in self.routes}
        self.strict = strict
        self.mistral_ids = mistral_ids
        self.rejected: list[dict[str, Any]] = []
        self.models = list(models or ["fake-model"])
        self.request_log = Path(request_log) if request_log else None
        self._port = port
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._requests: list[dict[str, Any]] = []
        self._paths: list[str] = []
        self._headers: list[dict[str, str]] = []
        self._times: list[float] = []
        self._stream_ends: list[float] = []
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
        if self.tls is not None:
            import ssl

            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(*self.tls)
            self._http.socket = context.wrap_socket(self._http.socket, server_side=True)
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
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}/v1"

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
    def stream_end_times(self) -> list[float]:
        """Wall-clock time (``time.time()``) each complete stream's last byte was sent."""
        with self._lock:
            return list(self._stream_ends)

    def _streamed(self, at: float) -> None:
        with self._lock:
            self._stream_ends.append(at)

    @property
    def remaining(self) -> int:
        """Turns not yet served."""
        with self._lock:
            return len(self.script) - self._served

    def add(self, *turns: Turn) -> None:
        """Append turns to the script (also while serving)."""
        with self._lock:
            self.script.extend(turns)

    def _record(self, body: dict[str, Any], path: str, headers: dict[str, str]) -> None:
        with self._lock:
            self._requests.append(body)
            self._paths.append(path)
            self._headers.append(headers)
            self._times.append(time.time())
            self.rejected.append(body)

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
            key = _route_key(body, self.routes)
            if key is not None:
                turns, index = self.routes[key], self.routed.get(key, 0)
                if index >= len(turns):
                    return None, index
                self.routed[key] = index + 1
                return turns[index], index
            index = self._served
            if index >= len(self.script):
                return None, index
            self._served += 1
            return self.script[index], index


def _first_user_text(body: dict[str, Any]) -> str:
    """The text of the first user message of an OpenAI (either API) or Anthropic request body."""
    for message in body.get("messages") or body.get("input") or []:
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return " ".join(
                    str(part.get("text", "")) for part in content if isinstance(part, dict)
                )
            return ""
    return ""


def _route_key(body: dict[str, Any], routes: dict[str, list[Turn]]) -> str | None:
    if not routes:
        return None
    text = _first_user_text(body)
    return next((key for key in routes if key in text), None)


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
        load_script(args.script),
        port=args.port,
        request_log=args.request_log,
        routes=load_routes(args.script),
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
