"""``ask_user`` answered by pi's own RpcClient (npm @mariozechner/pi-coding-agent): each
question is pi's ``extension_ui_request`` select (options, their details, ``multiple``,
``allowOther``), answered with ``extension_ui_response`` as pi's example client does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import ToolCallSpec, Turn
from tests.fakes.provider_server import FakeProviderServer
from tests.modes.rpc.npm_client.driver import PiRpcClient, fake_provider_env, start_options
from tests.pi_npm import require_pi_package

QUESTIONS = [
    {
        "question": "Which database?",
        "header": "Database",
        "options": [{"label": "Postgres", "description": "the stack's"}, {"label": "SQLite"}],
    },
    {
        "question": "Which features?",
        "header": "Features",
        "options": [{"label": "Login"}, {"label": "Search"}, {"label": "Export"}],
        "multiSelect": True,
    },
]


@pytest.fixture
def rig(tmp_path: Path, pi_home: Path) -> Iterator[tuple[PiRpcClient, FakeProviderServer]]:
    package = require_pi_package()
    project = tmp_path / "project"
    project.mkdir()
    server = FakeProviderServer().start()
    env = fake_provider_env(tmp_path, pi_home, server.openai_base_url)
    client = PiRpcClient(package, env)
    client.call("start", start_options(project, env))
    yield client, server
    client.close()
    server.stop()


def _select(client: PiRpcClient, start: int, title: str) -> dict[str, Any]:
    return client.wait_event(
        lambda e: (
            e.get("type") == "extension_ui_request"
            and e.get("method") == "select"
            and e.get("title", "").startswith(title)
        ),
        start=start,
    )


def test_ask_user_is_answered_by_pis_rpc_client(
    rig: tuple[PiRpcClient, FakeProviderServer],
) -> None:
    client, server = rig
    server.add(
        Turn(tool_calls=[ToolCallSpec("ask_user", {"questions": QUESTIONS}, id="q1")]),
        Turn(text="noted"),
    )
    start = len(client.events)
    client.call("prompt", "plan it")
    first = _select(client, start, "Database: Which database?")
    assert first["options"] == ["Postgres", "SQLite"]
    assert first["optionDetails"] == [
        {"label": "Postgres", "description": "the stack's"},
        {"label": "SQLite", "description": ""},
    ]
    assert first["multiple"] is False and first["allowOther"] is True
    assert first["source"] == "tool ask_user" and first["message"] == "question 1 of 2"
    client.call("respondUi", {"id": first["id"], "value": "MariaDB, we have it"})
    second = _select(client, start, "Features: Which features?")
    assert second["multiple"] is True
    client.call("respondUi", {"id": second["id"], "values": ["Search", "Export"]})
    client.call("waitForIdle")
    assert client.call("getLastAssistantText") == "noted"
    results = [m for m in client.call("getMessages") if m["role"] == "toolResult"]
    assert results[-1]["content"][0]["text"].startswith(
        'The user answered: "Which database?"="MariaDB, we have it", '
        '"Which features?"="Search, Export".'
    )


def test_a_cancelled_question_tells_the_model(
    rig: tuple[PiRpcClient, FakeProviderServer],
) -> None:
    client, server = rig
    server.add(
        Turn(tool_calls=[ToolCallSpec("ask_user", {"questions": QUESTIONS[:1]}, id="q1")]),
        Turn(text="fine"),
    )
    start = len(client.events)
    client.call("prompt", "plan it")
    first = _select(client, start, "Database: Which database?")
    client.call("respondUi", {"id": first["id"], "cancelled": True})
    client.call("waitForIdle")
    results = [m for m in client.call("getMessages") if m["role"] == "toolResult"]
    assert "dismissed the question" in results[-1]["content"][0]["text"]
