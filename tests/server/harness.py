"""A real ``pi serve`` process, and clients of it, for the server's end-to-end tests.

:class:`ServerProcess` starts ``python -m pi_cli.cli serve`` (Unix socket, and TCP on
127.0.0.1 with an ephemeral port) in a fresh ``PI_HOME``; :class:`WsClient` is a WebSocket client
of one session (the ``websockets`` library's sync client, a peer we did not write) that collects
every line on a thread; :func:`http` makes plain requests over either listener.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from queue import Empty, Queue
from typing import Any

import httpx
from websockets.sync.client import connect, unix_connect

REPO = Path(__file__).resolve().parents[2]
TIMEOUT = 20.0


def child_env(pi_home: Path, **extra: str) -> dict[str, str]:
    """The environment of a pi child: this PI_HOME, no keys, no local probing."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        {
            "PI_HOME": str(pi_home),
            "PYTHONPATH": str(REPO),
            "PI_NO_LOCAL_PROBE": "1",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
    )
    env.pop("PI_SERVER_SOCKET", None)
    env.pop("PI_SERVER_URL", None)
    env.update(extra)
    return env


class ServerProcess:
    """``pi serve --tcp 127.0.0.1:0`` as a child process."""

    def __init__(self, pi_home: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.pi_home = pi_home
        self.log = pi_home / "serve-test.log"
        argv = [sys.executable, "-m", "pi_cli.cli", "serve", "--tcp", "127.0.0.1:0", *args]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                argv,
                env=env or child_env(pi_home),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )
        self.info = self._wait_ready()
        self.socket = Path(self.info["socket"])
        self.url = str(self.info["url"])
        self.token = (pi_home / "server" / "token").read_text().strip()

    def _wait_ready(self) -> dict[str, Any]:
        path = self.pi_home / "server" / "server.json"
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(f"pi serve exited: {self.log.read_text()}")
            try:
                info = json.loads(path.read_text())
                if info.get("pid") == self.process.pid:
                    return info
            except (OSError, ValueError):
                pass
            time.sleep(0.02)
        raise AssertionError(f"pi serve did not start: {self.log.read_text()}")

    def http(self, token: str | None = None, tcp: bool = False) -> httpx.Client:
        """A client over the socket (or TCP), with the token unless another is given."""
        headers = {"Authorization": f"Bearer {self.token if token is None else token}"}
        if token == "":
            headers = {}
        if tcp:
            return httpx.Client(base_url=self.url, headers=headers, timeout=TIMEOUT)
        transport = httpx.HTTPTransport(uds=str(self.socket))
        return httpx.Client(
            base_url="http://localhost", transport=transport, headers=headers, timeout=TIMEOUT
        )

    def open_session(self, cwd: Path, **options: Any) -> dict[str, Any]:
        """``POST /api/sessions``; the summary."""
        with self.http() as client:
            response = client.post("/api/sessions", json={"cwd": str(cwd), **options})
        assert response.status_code == 201, response.text
        return dict(response.json())

    def rpc(self, session_id: str, command: dict[str, Any]) -> dict[str, Any]:
        """One RPC command over HTTP; its response line."""
        with self.http() as client:
            response = client.post(f"/api/sessions/{session_id}/rpc", json=command)
        assert response.status_code == 200, response.text
        return dict(response.json())

    def sessions(self) -> list[dict[str, Any]]:
        """``GET /api/sessions``."""
        with self.http() as client:
            return list(client.get("/api/sessions").json()["sessions"])

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Stop it (SIGTERM: cleanly); its exit code."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                return self.process.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise AssertionError("pi serve did not stop on SIGTERM") from None
        return int(self.process.returncode)


class WsClient:
    """A session's WebSocket; a thread reads every line into :attr:`lines`."""

    def __init__(
        self,
        server: ServerProcess,
        session_id: str,
        label: str = "rpc",
        token: str | None = None,
        tcp: bool = False,
        **kwargs: Any,
    ) -> None:
        headers = {"Authorization": f"Bearer {server.token if token is None else token}"}
        path = f"/api/sessions/{session_id}/ws?client={label}"
        if tcp:
            ws = connect(
                server.url.replace("http", "ws") + path,
                additional_headers=headers,
                max_size=None,
                **kwargs,
            )
        else:
            ws = unix_connect(
                str(server.socket),
                "ws://localhost" + path,
                additional_headers=headers,
                max_size=None,
                **kwargs,
            )
        self.ws = ws.__enter__()  # closed by close() (the library wants a context manager)
        self.raw: list[str] = []
        self.queue: Queue[dict[str, Any] | None] = Queue()
        self.seen: list[dict[str, Any]] = []
        self.closed_with: tuple[int | None, str] | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for message in self.ws:
                text = message if isinstance(message, str) else message.decode()
                self.raw.append(text)
                self.queue.put(json.loads(text))
        except Exception:  # noqa: BLE001 - the connection ended: recorded below
            pass
        finally:
            self.closed_with = (self.ws.close_code, self.ws.close_reason or "")
            self.queue.put(None)

    def send(self, command: dict[str, Any]) -> None:
        self.ws.send(json.dumps(command))

    def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = TIMEOUT
    ) -> dict[str, Any]:
        """The first line (not yet returned) matching ``predicate``."""
        for line in self.seen:
            if not line.get("_taken") and predicate(line):
                line["_taken"] = True
                return line
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.queue.get(timeout=max(0.01, deadline - time.monotonic()))
            except Empty:
                raise AssertionError(
                    f"timed out; seen {[x.get('type') for x in self.seen][-30:]}"
                ) from None
            if line is None:
                self.queue.put(None)
                raise AssertionError(
                    f"connection closed {self.closed_with}; seen {[x.get('type') for x in self.seen][-30:]}"
                )
            self.seen.append(line)
            if predicate(line):
                line["_taken"] = True
                return line

    def request(self, command: dict[str, Any]) -> dict[str, Any]:
        self.send(command)
        wanted = command.get("id")
        return self.wait_for(lambda x: x.get("type") == "response" and x.get("id") == wanted)

    def close(self) -> None:
        self.ws.close()
        self.thread.join(TIMEOUT)


def of_type(kind: str) -> Callable[[dict[str, Any]], bool]:
    return lambda line: line.get("type") == kind
