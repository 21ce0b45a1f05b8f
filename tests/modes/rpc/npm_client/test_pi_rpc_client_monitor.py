"""A monitor under pi's own RpcClient (npm @mariozechner/pi-coding-agent): its delivery, while
the agent is idle, wakes a run the client sees (``monitor_delivered``, then the run's events)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes import ToolCallSpec, Turn
from tests.fakes.provider_server import FakeProviderServer
from tests.modes.rpc.npm_client.driver import PiRpcClient, fake_provider_env, start_options
from tests.pi_npm import require_pi_package


@pytest.fixture
def rig(tmp_path: Path, pi_home: Path) -> Iterator[tuple[PiRpcClient, FakeProviderServer, Path]]:
    package = require_pi_package()
    project = tmp_path / "project"
    project.mkdir()
    server = FakeProviderServer().start()
    env = fake_provider_env(tmp_path, pi_home, server.openai_base_url)
    client = PiRpcClient(package, env)
    client.call("start", start_options(project, env, "--permission-mode", "bypassPermissions"))
    yield client, server, project
    client.close()
    server.stop()


def test_a_monitor_wakes_the_idle_agent_over_rpc(
    rig: tuple[PiRpcClient, FakeProviderServer, Path],
) -> None:
    client, server, project = rig
    command = "echo booting; while [ ! -f go ]; do sleep 0.05; done; echo READY on 5173; sleep 30"
    args = {"command": command, "description": "dev server", "pattern": "READY"}
    server.add(
        Turn(tool_calls=[ToolCallSpec("monitor", args, id="m1")]),
        Turn(text="Waiting for the server."),
        Turn(text="The server is ready."),
    )
    client.call("promptAndWait", "start the dev server")
    assert client.call("getLastAssistantText") == "Waiting for the server."
    start = len(client.events)
    (project / "go").touch()
    delivered = client.wait_event(lambda e: e.get("type") == "monitor_delivered", start=start)
    assert delivered["monitorId"] == "bash_1" and delivered["lines"] == ["READY on 5173"]
    assert delivered["description"] == "dev server" and delivered["dropped"] == 0
    client.wait_event(lambda e: e.get("type") == "agent_end", start=start)  # the woken run
    assert client.call("getLastAssistantText") == "The server is ready."
    users = [m for m in client.call("getMessages") if m["role"] == "user"]
    text = users[-1]["content"]
    text = text if isinstance(text, str) else "".join(p.get("text", "") for p in text)
    assert text == "[monitor bash_1 · dev server] 1 new line\nREADY on 5173"
