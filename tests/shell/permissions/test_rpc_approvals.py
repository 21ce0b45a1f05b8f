"""Approvals over RPC: pi's extension_ui_request answered by a client (real CLI, fake server)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.modes.rpc.test_rpc import RpcClient, child_env
from tests.shell.permissions.conftest import tool_results


def ui_request(line: dict[str, Any]) -> bool:
    return line.get("type") == "extension_ui_request"


def of_type(kind: str):
    return lambda line: line.get("type") == kind


@pytest.fixture
def start(project: Path, pi_home: Path, server: FakeProviderServer) -> Iterator[Any]:
    clients: list[RpcClient] = []

    def run(*extra: str) -> RpcClient:
        argv = [sys.executable, "-m", "pi_cli.cli", "--mode", "rpc", "--no-session"]
        argv += ["--model", "openai/fake", "--api-base", server.openai_base_url, *extra]
        client = RpcClient(argv, project, child_env(pi_home))
        clients.append(client)
        return client

    yield run
    for client in clients:
        if client.process.poll() is None:
            client.process.kill()
            client.process.wait()


def touch(name: str) -> ToolCallSpec:
    return ToolCallSpec("bash", {"command": f"touch {name}"}, id=f"call_{name}")


def test_a_batch_is_asked_in_order_and_each_answer_counts(
    start: Any, server: FakeProviderServer, project: Path
) -> None:
    server.add(Turn(tool_calls=[touch("a"), touch("b"), touch("c")]), Turn(text="done"))
    server.add(Turn(tool_calls=[touch("d")]), Turn(text="done again"))
    client = start()
    assert client.request({"type": "prompt", "id": "p1", "message": "touch them"})["success"]
    answers = [
        {"value": "Allow once"},
        {"value": "Deny", "message": "not b"},
        {"value": "Always (project settings)"},
    ]
    titles = []
    for answer in answers:
        request = client.wait_for(ui_request)
        assert request["method"] == "select" and request["timeout"] == 120_000
        assert request["options"] == [
            "Allow once",
            "Allow for this session",
            "Always (project settings)",
            "Always (user settings)",
            "Deny",
        ]
        titles.append(request["title"])
        client.send({"type": "extension_ui_response", "id": request["id"], **answer})
    assert titles == [f"Allow bash: $ touch {n}?" for n in "abc"]  # source order, one at a time
    client.wait_for(of_type("agent_end"))
    assert (project / "a").exists() and not (project / "b").exists() and (project / "c").exists()
    results = tool_results(server.requests[1])
    assert results[1] == "denied by the user: not b"
    settings = json.loads((project / ".pi" / "settings.json").read_text())
    assert settings["permissions"]["allow"] == ["Bash(touch:*)"]
    # The rule now covers the next touch: no question.
    assert client.request({"type": "prompt", "id": "p2", "message": "and d"})["success"]
    client.wait_for(of_type("agent_end"))
    assert (project / "d").exists()
    assert sum(ui_request(line) for line in client.seen) == 3
    assert client.close() == 0


def test_no_answer_times_out_and_abort_cancels(
    start: Any, server: FakeProviderServer, project: Path, pi_home: Path
) -> None:
    (pi_home / "settings.json").write_text('{"permissions": {"approvalTimeoutS": 0.5}}')
    server.add(Turn(tool_calls=[touch("late")]), Turn(text="gave up"))
    server.add(Turn(tool_calls=[touch("aborted")]), Turn(text="never"))
    client = start()
    client.request({"type": "prompt", "id": "p1", "message": "touch late"})
    request = client.wait_for(ui_request)
    assert request["timeout"] == 500
    resolved = client.wait_for(of_type("permission_resolved"))
    assert resolved["by"] == "timeout" and resolved["allowed"] is False
    client.wait_for(of_type("agent_end"))
    assert "no answer to the approval request within 0.5s" in tool_results(server.requests[1])[0]
    late = client.request(
        {"type": "extension_ui_response", "id": request["id"], "value": "Allow once"}
    )
    assert late["success"] is False and "No pending request" in late["error"]

    client.request({"type": "prompt", "id": "p2", "message": "touch again"})
    client.wait_for(ui_request)
    client.request({"type": "abort", "id": "a1"})
    resolved = client.wait_for(of_type("permission_resolved"))
    assert resolved["by"] == "aborted"
    client.wait_for(of_type("agent_end"))
    assert not (project / "aborted").exists() and not (project / "late").exists()
    assert client.close() == 0


def test_confirm_style_and_malformed_answers(
    start: Any, server: FakeProviderServer, project: Path
) -> None:
    server.add(Turn(tool_calls=[touch("x")]), Turn(text="ok"))
    client = start()
    client.request({"type": "prompt", "id": "p1", "message": "touch x"})
    request = client.wait_for(ui_request)
    bad = client.request({"type": "extension_ui_response", "id": request["id"], "value": "Maybe"})
    assert bad["success"] is False and "one of" in bad["error"]
    client.send({"type": "extension_ui_response", "id": request["id"], "confirmed": True})
    client.wait_for(of_type("agent_end"))
    assert (project / "x").exists()
    assert client.close() == 0


def test_web_fetch_approvals_are_readable_and_refused_urls_never_asked(
    start: Any, server: FakeProviderServer, project: Path
) -> None:
    server.add(
        Turn(
            tool_calls=[
                ToolCallSpec("web_fetch", {"url": "http://[::1]:8080/"}, id="w0"),
                ToolCallSpec("web_fetch", {"url": "https://docs.example.com/guide"}, id="w1"),
            ]
        ),
        Turn(text="done"),
    )
    client = start("--permission-mode", "default")
    assert client.request({"type": "prompt", "id": "p1", "message": "fetch"})["success"]
    request = client.wait_for(ui_request)
    assert request["toolCallId"] == "w1"  # w0 (loopback) was refused without a question
    assert "GET https://docs.example.com/guide\nhost: docs.example.com" in request["message"]
    assert '"url"' not in request["message"]
    client.send({"type": "extension_ui_response", "id": request["id"], "value": "Deny"})
    client.wait_for(of_type("agent_end"))
    results = tool_results(server.requests[1])
    assert results[0].startswith("refused to fetch from ::1")
    assert client.close() == 0
