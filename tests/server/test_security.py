"""What a hostile or careless client gets from ``pi serve``: refusals that leave it serving."""

from __future__ import annotations

import json
import os
import socket
import stat
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn
from tests.server.harness import ServerProcess, WsClient, of_type


def test_files_are_private(server: ServerProcess, pi_home: Path) -> None:
    directory = pi_home / "server"
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    for name in ("token", "server.json"):
        assert stat.S_IMODE((directory / name).stat().st_mode) == 0o600
    assert stat.S_ISSOCK(server.socket.stat().st_mode)
    assert stat.S_IMODE(server.socket.stat().st_mode) == 0o600


@pytest.mark.parametrize("tcp", [False, True])
def test_every_request_needs_the_token(server: ServerProcess, tcp: bool) -> None:
    for token in ("", "wrong-token-" + "x" * 30, server.token[:-1]):
        with server.http(token=token, tcp=tcp) as client:
            for method, path in [
                ("GET", "/api/sessions"),
                ("GET", "/api/openapi.json"),
                ("POST", "/api/sessions"),
                ("GET", "/api/server"),
                ("POST", "/api/server/stop"),
                ("GET", "/"),
            ]:
                response = client.request(method, path, json={"cwd": "/"})
                assert response.status_code == 401, (token, method, path, response.text)
        with pytest.raises(InvalidStatus) as refused:
            WsClient(server, "anything", token=token, tcp=tcp)
        assert refused.value.response.status_code == 401
    with server.http(tcp=tcp) as client:
        assert client.get("/api/sessions").status_code == 200


def test_cross_origin_and_rebound_host_are_refused(
    server: ServerProcess, project: Path, model: dict[str, Any]
) -> None:
    session = server.open_session(project, **model)["id"]
    port = server.url.rsplit(":", 1)[1]
    with server.http(tcp=True) as client:
        for headers in (
            {"Origin": "http://evil.example"},
            {"Origin": "null"},
            {"Origin": f"http://localhost:{int(port) + 1}"},
            {"Host": f"evil.example:{port}"},  # a DNS-rebinding page reaches us under its name
            {"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"},
        ):
            response = client.post(
                f"/api/sessions/{session}/rpc", json={"type": "get_state"}, headers=headers
            )
            assert response.status_code == 403, headers
        same = client.post(
            f"/api/sessions/{session}/rpc",
            json={"type": "get_state", "id": 1},
            headers={"Origin": f"http://127.0.0.1:{port}"},
        )
        assert same.status_code == 200 and same.json()["success"] is True
    with pytest.raises(InvalidStatus) as refused:
        WsClient(server, session, tcp=True, origin="http://evil.example")
    assert refused.value.response.status_code == 403
    same_origin = WsClient(server, session, tcp=True, origin=f"http://127.0.0.1:{port}")
    assert same_origin.wait_for(of_type("attached"))["session"]["id"] == session
    same_origin.close()


@pytest.mark.parametrize(
    "ref",
    [
        "..",
        "../../etc/passwd",
        "..%2F..%2Fetc%2Fpasswd",
        "%2e%2e",
        "a%00b",
        ".hidden",
        "a.jsonl",
        "x" * 200,
        "%2Ftmp%2Fsession.jsonl",
    ],
)
def test_a_session_id_is_never_a_path(server: ServerProcess, pi_home: Path, ref: str) -> None:
    outside = pi_home / "sessions" / "secret.jsonl"
    outside.parent.mkdir(parents=True, exist_ok=True)
    outside.write_text('{"type":"session","id":"secret"}\n')
    with server.http() as client:
        for method, path, body in [
            ("GET", f"/api/sessions/{ref}", None),
            ("DELETE", f"/api/sessions/{ref}", None),
            ("POST", f"/api/sessions/{ref}/rpc", {"type": "get_messages", "id": 1}),
        ]:
            response = client.request(method, path, json=body)
            assert response.status_code in (400, 404, 405), (method, path, response.status_code)
            assert "secret" not in response.text
    with pytest.raises((InvalidStatus, ConnectionClosed)):
        WsClient(server, ref)
    assert outside.exists()
    assert server.process.poll() is None


def test_open_session_refuses_bad_bodies(server: ServerProcess, tmp_path: Path) -> None:
    with server.http() as client:
        for body, status in [
            ({"cwd": "relative/dir"}, 400),
            ({"cwd": str(tmp_path / "missing")}, 400),
            ({"cwd": str(tmp_path), "unknown": 1}, 400),
            ({"cwd": str(tmp_path), "maxTurns": "3"}, 400),
            ({}, 400),
        ]:
            response = client.post("/api/sessions", json=body)
            assert response.status_code == status, (body, response.text)
            assert "error" in response.json()
        assert client.post("/api/sessions", content=b"{nope").status_code == 400
        assert client.post("/api/sessions", content=b"[]").status_code == 400


def test_a_10_mb_command_is_refused_and_the_server_goes_on(
    server: ServerProcess, project: Path, model: dict[str, Any], provider: FakeProviderServer
) -> None:
    session = server.open_session(project, **model)["id"]
    watcher = WsClient(server, session)
    watcher.wait_for(of_type("attached"))
    huge = json.dumps({"type": "prompt", "id": "big", "message": "x" * (10 * 1024 * 1024)})
    greedy = WsClient(server, session)
    greedy.wait_for(of_type("attached"))
    try:
        greedy.ws.send(huge)
    except (ConnectionClosed, OSError):
        pass  # the server may close before the whole frame is written
    greedy.thread.join(20)
    # Refused: "message too big" (1009), or the connection cut while the client still sent it.
    assert greedy.closed_with is not None and greedy.closed_with[0] in (1009, 1006)
    with server.http() as client:
        response = client.post(f"/api/sessions/{session}/rpc", content=huge.encode())
        assert response.status_code == 413
    provider.add(Turn(text="still here"))
    assert watcher.request({"type": "prompt", "id": "p", "message": "hello"})["success"]
    end = watcher.wait_for(of_type("agent_end"))
    assert end["messages"][-1]["content"][0]["text"] == "still here"
    assert provider.requests and "x" * 1000 not in json.dumps(provider.requests)
    watcher.close()


def test_malformed_frames_get_errors_not_a_dead_connection(
    server: ServerProcess, project: Path, model: dict[str, Any]
) -> None:
    session = server.open_session(project, **model)["id"]
    client = WsClient(server, session)
    client.wait_for(of_type("attached"))
    for frame, problem in [
        ("{nope", "Malformed JSON"),
        ("[1, 2]", "JSON object"),
        ("[" * 100_000, "nested too deeply"),
        (json.dumps({"type": "prompt", "id": 1}), '"message" (a string) is required'),
        (json.dumps({"type": "set_auto_retry", "id": 2, "enabled": "yes"}), "true or false"),
        (json.dumps({"type": "fly", "id": 3}), "Unknown command"),
    ]:
        client.ws.send(frame)
        line = client.wait_for(lambda x: x.get("type") == "response" and x.get("success") is False)
        assert problem in line["error"], (frame[:40], line)
    client.ws.send(b'{"type":"get_state","id":"bin"}')  # a binary frame is read as UTF-8
    assert client.wait_for(lambda x: x.get("id") == "bin")["success"]
    client.close()


def test_a_reader_that_never_drains_is_dropped_and_others_are_not_slowed(
    serve: Any, pi_home: Path, project: Path, model: dict[str, Any], provider: FakeProviderServer
) -> None:
    (pi_home / "settings.json").write_text(json.dumps({"server": {"clientLagMib": 2}}))
    server = serve()
    session = server.open_session(project, **model)["id"]
    good = WsClient(server, session)
    good.wait_for(of_type("attached"))
    # A raw client: handshake, then it never reads again (its socket buffer fills up).
    slow = socket.socket(socket.AF_UNIX)
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.connect(str(server.socket))
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    slow.sendall(
        (
            f"GET /api/sessions/{session}/ws?client=rpc HTTP/1.1\r\nHost: localhost\r\n"
            f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\nAuthorization: Bearer {server.token}\r\n\r\n"
        ).encode()
    )
    assert b"101" in slow.recv(12)
    assert _clients(server, session) == 2
    # ~36 updates, each with the partial answer (up to 150 kB) twice: megabytes for the slow one.
    provider.add(Turn(text="y" * 150_000, chunk_size=500, chunk_delay_s=0.004))
    assert good.request({"type": "prompt", "id": "p", "message": "talk a lot"})["success"]
    end = good.wait_for(of_type("agent_end"))
    assert len(end["messages"][-1]["content"][0]["text"]) == 150_000
    assert _clients(server, session) == 1  # the slow one is gone, the good one stays
    slow.close()
    good.close()


def _clients(server: ServerProcess, session: str) -> int:
    with server.http() as client:
        return len(client.get(f"/api/sessions/{session}").json()["clients"])


def test_rotating_the_token_disconnects_old_clients(
    server: ServerProcess, pi_home: Path, project: Path, model: dict[str, Any]
) -> None:
    import subprocess
    import sys

    from tests.server.harness import child_env

    session = server.open_session(project, **model)["id"]
    client = WsClient(server, session)
    client.wait_for(of_type("attached"))
    done = subprocess.run(
        [sys.executable, "-m", "pi_cli.cli", "serve", "--rotate-token"],
        env=child_env(pi_home),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    new = (pi_home / "server" / "token").read_text().strip()
    assert (
        new != server.token and stat.S_IMODE((pi_home / "server" / "token").stat().st_mode) == 0o600
    )
    client.thread.join(20)
    assert client.closed_with is not None and "rotated" in client.closed_with[1]
    with server.http() as old:
        assert old.get("/api/sessions").status_code == 401
    with server.http(token=new) as fresh:
        assert fresh.get("/api/sessions").status_code == 200


def test_a_token_file_others_can_read_is_refused(pi_home: Path) -> None:
    import subprocess
    import sys

    from tests.server.harness import child_env

    directory = pi_home / "server"
    directory.mkdir(mode=0o700)
    token = directory / "token"
    token.write_text("a" * 40)
    os.chmod(token, 0o644)
    done = subprocess.run(
        [sys.executable, "-m", "pi_cli.cli", "serve"],
        env=child_env(pi_home),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1 and "may be read by others" in done.stderr


def test_a_non_loopback_address_needs_allow_remote(pi_home: Path) -> None:
    import subprocess
    import sys

    from tests.server.harness import child_env

    done = subprocess.run(
        [sys.executable, "-m", "pi_cli.cli", "serve", "--tcp", "0.0.0.0:0"],
        env=child_env(pi_home),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1 and "--allow-remote" in done.stderr
    assert not (pi_home / "server" / "server.json").exists()


def test_one_server_per_pi_home(server: ServerProcess, pi_home: Path) -> None:
    import subprocess
    import sys

    from tests.server.harness import child_env

    done = subprocess.run(
        [sys.executable, "-m", "pi_cli.cli", "serve"],
        env=child_env(pi_home),
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 1 and "already running" in done.stderr
    with server.http() as client:
        assert client.get("/api/server").json()["pid"] == server.process.pid


def test_openapi_describes_every_rpc_command_and_event(server: ServerProcess) -> None:
    from pi_cli.modes.rpc.connection import COMMAND_GROUPS  # noqa: F401 - the handlers' groups
    from pi_cli.modes.rpc.schema import COMMAND_MODELS

    with server.http() as client:
        doc = client.get("/api/openapi.json").json()
    assert doc["openapi"] == "3.1.0"
    mapping = doc["components"]["schemas"]["RpcCommand"]["discriminator"]["mapping"]
    assert set(mapping) == set(COMMAND_MODELS)
    prompt = doc["components"]["schemas"]["Prompt"]
    assert {"message", "images", "streamingBehavior"} <= set(prompt["properties"])
    assert "message" in prompt["required"]
    schemas = doc["components"]["schemas"]
    kinds = set()
    for member in schemas["RpcLine"]["oneOf"]:
        if "$ref" in member:
            member = schemas[member["$ref"].rsplit("/", 1)[1]]
        kind = member["properties"]["type"]
        kinds.add(kind.get("const") or kind.get("default") or kind.get("enum", [None])[0])
    assert {
        "agent_start",
        "message_update",
        "permission_requested",
        "queue_changed",
        "attached",
        "response",
    } <= kinds
    assert "/api/sessions/{id}/ws" in doc["paths"]
