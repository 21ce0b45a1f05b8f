"""web_search through the shell: off without a backend, asked about the backend's host, the
key held out of the tools' environment and of what the model and the session see."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from pi_cli.shell.events import PermissionRequested
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.agent_tools.conftest import make_shell, tool_texts
from tests.tools.web.test_search import backend_server, fixture

KEY = "BSA-SECRET-KEY-0123456789"


def search(call_id: str, query: str) -> ToolCallSpec:
    return ToolCallSpec("web_search", {"query": query}, id=call_id)


async def test_off_without_a_backend(project: Path, server: FakeProviderServer) -> None:
    shell = make_shell(project, server)
    assert "web_search" not in {tool.name for tool in shell.tools}
    assert "web_fetch" in {tool.name for tool in shell.tools}
    await shell.aclose()


async def test_searxng_asks_about_its_host_then_remembers(
    project: Path, server: FakeProviderServer, pi_home: Path
) -> None:
    with backend_server(200, fixture("searxng_search.json")) as backend:
        settings = {"webSearch": {"backend": "searxng", "url": backend.url}}
        (pi_home / "settings.json").write_text(json.dumps(settings))
        server.add(
            Turn(tool_calls=[search("s1", "httpx proxy")]),
            Turn(tool_calls=[search("s2", "httpx socks")]),
            Turn(text="done"),
        )
        shell = make_shell(project, server, approvals="interactive")
        assert "web_search" in {tool.name for tool in shell.tools}
        asked: list[PermissionRequested] = []

        def answer(event: Any) -> None:
            if isinstance(event, PermissionRequested):
                asked.append(event)
                shell.answer(event.id, "allow_session")

        shell.subscribe(answer)
        await shell.submit("search the web for httpx proxies")
        await shell.wait_idle()
        await shell.aclose()
    assert len(asked) == 1
    assert asked[0].reason == "it sends the query to 127.0.0.1, a domain no rule allows"
    texts = tool_texts(server.requests[2])
    assert "1. Proxies - HTTPX" in texts[0] and "1. Proxies - HTTPX" in texts[1]


async def test_brave_key_is_held_from_tools_and_sessions(
    project: Path, server: FakeProviderServer, pi_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BRAVE_API_KEY", KEY)
    with backend_server(200, fixture("brave_web_search.json")) as backend:
        settings = {
            "webSearch": {"backend": "brave", "url": backend.url + "/res/v1/web/search"},
            "permissions": {"allow": ["WebSearch", "Bash"]},
        }
        (pi_home / "settings.json").write_text(json.dumps(settings))
        server.add(
            Turn(tool_calls=[search("s1", "httpx proxy")]),
            Turn(tool_calls=[ToolCallSpec("bash", {"command": "env"}, id="b1")]),
            Turn(text="done"),
        )
        shell = make_shell(project, server, tools=None)
        await shell.submit("search, then show the environment")
        await shell.wait_idle()
        session_file = shell.session.path if shell.session else None
        await shell.aclose()
    assert backend.seen[0][2]["X-Subscription-Token"] == KEY
    assert "Proxies - HTTPX" in tool_texts(server.requests[1])[0]
    everything = json.dumps(server.requests)
    assert KEY not in everything and "BRAVE_API_KEY=" not in everything
    if session_file is not None and os.path.exists(session_file):
        assert KEY not in Path(session_file).read_text()
