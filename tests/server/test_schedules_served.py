"""A loop in a session hosted by ``pi serve`` fires with no client attached (the timer lives in
the server's shell, in real time: the one end-to-end test of loops without a manual clock)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn
from tests.server.harness import ServerProcess, WsClient, of_type

DEADLINE_S = 60.0


def test_a_served_loop_fires_with_no_client_attached(
    server: ServerProcess, project: Path, model: dict[str, Any], provider: FakeProviderServer
) -> None:
    provider.add(*[Turn(text=f"pong {i}") for i in range(3)])
    session = server.open_session(project, **model)["id"]
    created = server.rpc(session, {"type": "submit", "message": "/loop --max 3 1s ping"})
    assert created["success"], created
    output = created["data"]["result"]["output"]
    assert "every 1s (1/3 firings) — fired now" in output
    deadline = time.monotonic() + DEADLINE_S
    while len(provider.requests) < 3 and time.monotonic() < deadline:
        time.sleep(0.1)  # nobody is attached: the server's own timer fires the loop
    assert len(provider.requests) == 3
    sent = [json.dumps(r["messages"]) for r in provider.requests]
    assert all("] ping" in body and "[scheduled " in body for body in sent)
    client = WsClient(server, session)
    hello = client.wait_for(of_type("attached"))
    texts = [m["content"][0]["text"] for m in hello["messages"] if m["role"] == "assistant"]
    if len(texts) < 3:  # the last run may still be streaming into the session
        client.wait_for(lambda line: line.get("type") == "agent_end")
    state = client.request({"type": "get_front_state", "id": "s"})
    assert state["data"]["schedules"] == []  # its --max ended it
    listed = client.request({"type": "submit", "id": "l", "message": "/loop list"})
    assert listed["data"]["result"]["output"].startswith("No loops or schedules")
    client.close()
