"""``pi -p`` with MCP servers: it waits for them (bounded), the model sees their tools, and a
call that would ask is denied (exit code 7) while a read-only one runs."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.cli.conftest import openai_args
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.mcp.conftest import rogue


def test_one_shot_waits_for_servers_and_applies_permissions(
    server: FakeProviderServer,
    run_pi,
    pi_home: Path,
) -> None:
    settings = {
        "mcpServers": {"r": rogue(), "stuck": rogue("hang")},
        "mcp": {"startupTimeoutS": 6},
        "permissions": {"defaultMode": "default"},
    }
    (pi_home / "settings.json").write_text(json.dumps(settings))
    server.add(
        Turn(
            tool_calls=[
                ToolCallSpec("mcp__r__peek", {}, id="a"),
                ToolCallSpec("mcp__r__echo", {"text": "x"}, id="b"),
            ]
        ),
        Turn(text="finished"),
    )
    began = time.monotonic()
    result = run_pi(*openai_args(server), "-p", "use the tools")
    elapsed = time.monotonic() - began
    assert result.returncode == 7, result.stderr
    assert result.stdout == "finished\n"
    assert "MCP server stuck is still starting after 6s" in result.stderr
    assert "✗ mcp__r__echo: denied: this call needs the user's approval" in result.stderr
    assert "failed" not in result.stderr  # stopping the stuck server at the end is no failure
    tools = [t["function"]["name"] for t in server.requests[0]["tools"]]
    assert "mcp__r__peek" in tools and "mcp__r__echo" in tools
    results = [m for m in server.requests[1]["messages"] if m["role"] == "tool"]
    assert "peeked" in json.dumps(results[0]) and "approval" in json.dumps(results[1])
    assert elapsed < 20
