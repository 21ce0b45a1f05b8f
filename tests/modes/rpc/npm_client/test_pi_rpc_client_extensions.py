"""Python extensions under pi's own RpcClient (npm @mariozechner/pi-coding-agent 0.73.1): the
permission gate's confirmation answered by the client, a footer segment and a status line as
pi's ``setStatus`` / ``setWidget`` requests, an extension's command in ``getCommands``; the
TypeScript pi's ``rpc-demo.ts`` in Python: ``setTitle``, ``set_editor_text``, ``input``.

The client answers a dialog as pi's own example client does (``examples/rpc-extension-ui.ts``):
an ``extension_ui_response`` line on the agent's stdin, with the request's id.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import ToolCallSpec, Turn
from tests.fakes.provider_server import FakeProviderServer
from tests.modes.rpc.npm_client.driver import REPO, PiRpcClient, start_options
from tests.pi_npm import require_pi_package

EXAMPLES = REPO / "examples" / "extensions"


@pytest.fixture
def rig(tmp_path: Path, pi_home: Path) -> Iterator[tuple[PiRpcClient, FakeProviderServer, Path]]:
    yield from start_rig(
        tmp_path, pi_home, ("permission_gate.py", "custom_footer.py", "status_line.py")
    )


@pytest.fixture
def demo_rig(
    tmp_path: Path, pi_home: Path
) -> Iterator[tuple[PiRpcClient, FakeProviderServer, Path]]:
    yield from start_rig(tmp_path, pi_home, ("rpc_demo.py",))


def start_rig(
    tmp_path: Path, pi_home: Path, files: tuple[str, ...]
) -> Iterator[tuple[PiRpcClient, FakeProviderServer, Path]]:
    package = require_pi_package()
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / ".git" / "HEAD").write_text("ref: refs/heads/feature-x\n")
    (project / "build").mkdir()
    (project / "build" / "out.txt").write_text("built")
    server = FakeProviderServer().start()
    models = {
        "providers": {
            "fake": {
                "baseUrl": server.openai_base_url,
                "api": "openai-completions",
                "apiKey": "test-key",
                "models": [{"id": "fake-model", "contextWindow": 100000}],
            }
        }
    }
    (pi_home / "models.json").write_text(json.dumps(models))
    extensions = [str(EXAMPLES / f) for f in files]
    (pi_home / "settings.json").write_text(json.dumps({"extensions": extensions}))
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(
        {
            "PI_HOME": str(pi_home),
            "HOME": str(home),
            "PYTHONPATH": str(REPO),
            "PI_NO_LOCAL_PROBE": "1",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        }
    )
    client = PiRpcClient(package, env)
    client.call("start", start_options(project, env, "--permission-mode", "bypassPermissions"))
    yield client, server, project
    client.close()
    server.stop()


def ui_requests(client: PiRpcClient, method: str, start: int = 0) -> list[dict[str, Any]]:
    return [
        e
        for e in client.events[start:]
        if e.get("type") == "extension_ui_request" and e.get("method") == method
    ]


def test_the_permission_gate_asks_and_the_clients_answer_decides(
    rig: tuple[PiRpcClient, FakeProviderServer, Path],
) -> None:
    client, server, project = rig
    rm = ToolCallSpec("bash", {"command": "rm -rf build"})
    server.add(
        Turn(tool_calls=[rm]), Turn(text="kept it"), Turn(tool_calls=[rm]), Turn(text="gone")
    )

    start = len(client.events)
    client.call("prompt", "clean up")
    confirm = client.wait_event(
        lambda e: e.get("type") == "extension_ui_request" and e.get("method") == "confirm",
        start=start,
    )
    assert confirm["title"] == "⚠️ Dangerous command" and "rm -rf build" in confirm["message"]
    assert confirm["source"] == "extension permission_gate" and confirm["timeout"] == 120000
    client.call("respondUi", {"id": confirm["id"], "confirmed": False})
    client.call("waitForIdle")
    assert (project / "build" / "out.txt").exists()
    tool_results = [m for m in client.call("getMessages") if m["role"] == "toolResult"]
    assert tool_results[-1]["content"][0]["text"] == "Blocked by user"
    resolved = client.wait_event(lambda e: e.get("type") == "dialog_resolved", start=start)
    assert resolved == {
        "type": "dialog_resolved",
        "id": confirm["id"],
        "by": "user",
        "cancelled": False,
        "confirmed": False,
    }

    start = len(client.events)
    client.call("prompt", "really clean up")
    confirm = client.wait_event(
        lambda e: e.get("type") == "extension_ui_request" and e.get("method") == "confirm",
        start=start,
    )
    client.call("respondUi", {"id": confirm["id"], "confirmed": True})
    client.call("waitForIdle")
    assert not (project / "build").exists()
    assert client.call("getLastAssistantText") == "gone"


def test_footer_segment_status_line_and_commands_reach_pis_client(
    rig: tuple[PiRpcClient, FakeProviderServer, Path],
) -> None:
    client, server, _ = rig
    server.add(Turn(text="hi there"))
    commands = {c["name"]: c for c in client.call("getCommands")}
    assert commands["footer"]["source"] == "extension"
    assert commands["footer"]["description"] == "Toggle custom footer"
    start = len(client.events)
    client.call("prompt", "/footer")
    status = client.wait_event(
        lambda e: e.get("method") == "setStatus" and e.get("statusText"), start=start
    )
    assert status["statusKey"] == "custom_footer.stats"
    assert status["statusText"].endswith("fake-model (feature-x)")
    notify = client.wait_event(lambda e: e.get("method") == "notify", start=start)
    assert notify["message"] == "Custom footer enabled" and notify["notifyType"] == "info"
    client.call("promptAndWait", "hello")
    client.wait_event(lambda e: e.get("widgetLines") == ["✓ Turn 1 complete"], start=start)
    widgets = [
        e for e in ui_requests(client, "setWidget") if e["widgetKey"] == "status_line.status-demo"
    ]
    lines = [w.get("widgetLines") for w in widgets]
    assert ["● Turn 1..."] in lines and ["✓ Turn 1 complete"] in lines
    assert all(w["widgetPlacement"] == "belowEditor" for w in widgets)
    client.call("prompt", "/footer")
    cleared = client.wait_event(
        lambda e: e.get("method") == "setStatus" and "statusText" not in e, start=start
    )
    assert cleared["statusKey"] == "custom_footer.stats"


def test_rpc_demo_title_editor_text_and_input_reach_pis_client(
    demo_rig: tuple[PiRpcClient, FakeProviderServer, Path],
) -> None:
    client, server, _ = demo_rig
    server.add(Turn(text="hi"))
    start = len(client.events)
    client.call("promptAndWait", "hello")
    title = client.wait_event(lambda e: e.get("method") == "setTitle", start=0)
    assert title["title"] == "pi RPC Demo"
    widget = client.wait_event(lambda e: e.get("widgetKey") == "rpc_demo.rpc-demo", start=0)
    assert widget["widgetLines"] == ["--- RPC Extension UI Demo ---", "Loaded and ready."]
    client.wait_event(lambda e: e.get("statusText") == "Turn 1 done", start=start)

    start = len(client.events)
    client.call("prompt", "/rpc-prefill")
    prefill = client.wait_event(lambda e: e.get("method") == "set_editor_text", start=start)
    assert prefill["text"] == "This text was set by the rpc-demo extension."
    notify = client.wait_event(lambda e: e.get("method") == "notify", start=start)
    assert notify["message"] == "Editor prefilled"

    start = len(client.events)
    client.call("prompt", "/rpc-input")
    ask = client.wait_event(lambda e: e.get("method") == "input", start=start)
    assert ask["title"] == "Enter a value" and ask["placeholder"] == "type something..."
    client.call("respondUi", {"id": ask["id"], "value": "forty-two"})
    said = client.wait_event(
        lambda e: e.get("method") == "notify" and "forty-two" in e.get("message", ""),
        start=start,
    )
    assert said["message"] == "You entered: forty-two"

    start = len(client.events)
    client.call("newSession")
    renamed = client.wait_event(lambda e: e.get("method") == "setTitle", start=start)
    assert renamed["title"] == "pi RPC Demo (new session)"
