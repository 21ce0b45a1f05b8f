"""A client's malformed frames against the real ``pi --mode acp``: each bad line gets a JSON-RPC
error (or is dropped when it answers nothing), and the session goes on: a prompt after the
whole corpus still runs, and a malformed answer to pi's own permission request fails that
request, not the agent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from queue import Empty, Queue
from typing import Any

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn

REPO = Path(__file__).resolve().parents[3]
TIMEOUT = 30.0

# (line, the id the error reply carries, or "drop" when nothing answers it)
CORPUS: list[tuple[bytes, Any]] = [
    (b"[]", None),
    (b'[{"jsonrpc": "2.0", "method": "initialize", "id": 50}]', None),
    (b"5", None),
    (b'"a string"', None),
    (b"null", None),
    (b"true", None),
    (b"garbage", None),
    (b"{", None),
    (b"\xff\xfe\x00 not utf-8", None),
    (b"[" * 100_000, None),
    (b"{}", None),
    (b'{"jsonrpc": "2.0", "id": [1], "result": {}}', None),
    (b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "initialize"}', None),
    (b'{"jsonrpc": "2.0", "id": true, "method": "initialize"}', None),
    (b'{"jsonrpc": "2.0", "id": 1e999, "method": "initialize"}', None),
    (b'{"jsonrpc": "2.0", "method": 5, "id": 51}', 51),
    (b'{"jsonrpc": "2.0", "method": null, "id": 52}', 52),
    (b'{"jsonrpc": "2.0", "method": "session/new", "id": 53, "params": 5}', 53),
    (b'{"jsonrpc": "1.0", "method": "initialize", "id": 54}', 54),
    (b'{"jsonrpc": "2.0", "id": 55}', None),
    (b'{"jsonrpc": "2.0", "id": 0, "error": "boom"}', None),
    (b'{"jsonrpc": "2.0", "id": 0, "result": {}, "error": {"code": 1, "message": "x"}}', None),
    (b'{"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "x"}}', "drop"),
    (b'{"jsonrpc": "2.0", "id": 424242, "result": {}}', "drop"),
    (b'{"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": [5]}}', "drop"),
    (b'{"jsonrpc": "2.0", "method": "session/new", "id": 56, "params": {"cwd": 5}}', 56),
    (b'{"jsonrpc": "2.0", "method": "session/prompt", "id": 57, "params": {"sessionId": {}}}', 57),
    (b'{"jsonrpc": "2.0", "method": "no/such/method", "id": 58}', 58),
    (b'{"jsonrpc": "2.0", "method": "session/new", "id": 59, "params": ' + b"[" * 5000, None),
]


def _not_json(name: str) -> None:
    raise AssertionError(f"pi wrote {name}, which is not JSON")


class RawClient:
    """Writes raw lines to ``pi --mode acp`` and collects its stdout messages."""

    def __init__(self, argv: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self.queue: Queue[dict[str, Any]] = Queue()
        self.seen: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for raw in iter(self.process.stdout.readline, b""):
            self.queue.put(json.loads(raw, parse_constant=_not_json))

    def send(self, line: bytes | dict[str, Any]) -> None:
        data = line if isinstance(line, bytes) else json.dumps(line).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(data + b"\n")
        self.process.stdin.flush()

    def next(self) -> dict[str, Any]:
        try:
            message = self.queue.get(timeout=TIMEOUT)
        except Empty:
            raise AssertionError(f"pi said nothing more; it said {self.seen}") from None
        self.seen.append(message)
        return message

    def until(self, wanted: Any) -> dict[str, Any]:
        """The next message with ``id == wanted`` (answering pi's requests meanwhile: never)."""
        while True:
            message = self.next()
            if message.get("id") == wanted and "method" not in message:
                return message

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=TIMEOUT)


def start(server: FakeProviderServer, cwd: Path, pi_home: Path) -> RawClient:
    argv = [sys.executable, "-m", "pi_cli.cli", "--mode", "acp", "--model", "openai/fake-model"]
    argv += ["--api-base", server.openai_base_url, "--api-key", "sk-test"]
    env = {**os.environ, "PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"}
    client = RawClient(argv, cwd, env)
    client.send(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    )
    assert "result" in client.until(1)
    return client


def test_every_malformed_frame_gets_an_error_and_the_session_goes_on(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    server.add(Turn(text="still here"))
    client = start(server, project, pi_home)
    for line, expected in CORPUS:
        client.send(line)
        if expected == "drop":
            continue
        reply = client.next()
        assert reply.get("id") == expected and "error" in reply, (line[:80], reply)
        assert reply["error"]["code"] in (-32700, -32600, -32601, -32602), (line[:80], reply)
    client.send(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "session/new",
            "params": {"cwd": str(project), "mcpServers": []},
        }
    )
    session = client.until(2)["result"]["sessionId"]
    prompt = {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}
    client.send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": prompt})
    assert client.until(3)["result"]["stopReason"] == "end_turn"
    texts = [
        m["params"]["update"]["content"]["text"]
        for m in client.seen
        if m.get("method") == "session/update"
        and m["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
    ]
    assert "".join(texts) == "still here"
    assert client.close() == 0


def test_a_malformed_answer_to_a_permission_request_fails_only_that_request(
    server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    server.add(
        Turn(tool_calls=[ToolCallSpec("bash", {"command": "touch made"}, id="b1")]),
        Turn(text="first done"),
        Turn(text="second done"),
    )
    client = start(server, project, pi_home)
    new = {"cwd": str(project), "mcpServers": []}
    client.send({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": new})
    session = client.until(2)["result"]["sessionId"]
    mode = {"sessionId": session, "modeId": "default"}
    client.send({"jsonrpc": "2.0", "id": 3, "method": "session/set_mode", "params": mode})
    client.until(3)
    prompt = {"sessionId": session, "prompt": [{"type": "text", "text": "go"}]}
    client.send({"jsonrpc": "2.0", "id": 4, "method": "session/prompt", "params": prompt})
    while (request := client.next()).get("method") != "session/request_permission":
        pass
    # An answer of the wrong shape: a result that is a number, then an id that is an array.
    client.send({"jsonrpc": "2.0", "id": [request["id"]], "result": {}})
    assert client.next()["error"]["code"] == -32600
    client.send({"jsonrpc": "2.0", "id": request["id"], "result": 5})
    finished = client.until(4)
    assert "result" in finished or "error" in finished
    assert not (project / "made").exists()  # an unreadable answer never allows
    client.send({"jsonrpc": "2.0", "id": 5, "method": "session/prompt", "params": prompt})
    assert client.until(5)["result"]["stopReason"] == "end_turn"
    assert client.close() == 0
