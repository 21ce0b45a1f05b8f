"""MCP configuration: Claude Code's format, ${VAR} expansion, trust, names, ``pi mcp``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pi_cli.shell.mcp._config import collect, parse_server
from pi_cli.shell.mcp._names import VALID, tool_name
from tests.shell.mcp.conftest import ROGUE

REPO = Path(__file__).resolve().parents[3]


def test_claude_code_shapes_and_expansion() -> None:
    env = {"HOME": "/h", "TOKEN": "t0k"}
    stdio = parse_server(
        "a", {"command": "${HOME}/bin/x", "args": ["--k=${TOKEN}"], "env": {"K": "${NOPE:-d}"}}, env
    )
    assert (stdio.transport, stdio.command, stdio.args, dict(stdio.env)) == (
        "stdio",
        "/h/bin/x",
        ("--k=t0k",),
        {"K": "d"},
    )
    http = parse_server(
        "b",
        {"type": "http", "url": "https://x/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
        env,
    )
    assert (http.transport, dict(http.headers)) == ("http", {"Authorization": "Bearer t0k"})
    assert parse_server("c", {"type": "sse", "url": "http://x/sse"}, env).transport == "sse"
    assert (
        parse_server("d", {"command": "x", "args": "not a list"}, env).problem
        == '"args" must be a list of strings'
    )
    assert "unknown type" in (parse_server("e", {"type": "ws", "url": "ws://x"}, env).problem or "")
    assert "not http" in (
        parse_server("f", {"type": "http", "url": "file:///etc/passwd"}, env).problem or ""
    )
    assert parse_server("g", ["no"], env).problem == "its entry is not an object"
    assert (
        parse_server("h", {"command": "${MISSING}"}, env).problem
        == "environment variable not set: MISSING"
    )


def test_sources_and_precedence(tmp_path: Path) -> None:
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"x": {"command": "project"}}}))
    layers = [("user", {"mcpServers": {"x": {"command": "user"}, "y": {"command": "y"}}})]
    found, problems = collect(layers, tmp_path, {})
    assert {c.name: c.command for c in found} == {"x": "project", "y": "y"} and not problems
    found, _ = collect(layers, None, {})  # untrusted: .mcp.json is not read
    assert {c.name: c.command for c in found} == {"x": "user", "y": "y"}
    (tmp_path / ".mcp.json").write_text("{broken")
    _, problems = collect([], tmp_path, {})
    assert problems and "Cannot read" in problems[0]


def test_tool_names_are_valid_and_unique() -> None:
    taken = {"read"}
    names = [tool_name("my server", "do thing!", taken), tool_name("my_server", "do_thing_", taken)]
    names.append(tool_name("s" * 80, "t" * 80, taken))
    names.append(tool_name("s" * 80, "t" * 80, taken))
    names.append(tool_name("ünï", "cödé", taken))
    assert names[0] == "mcp__my_server__do_thing_" and names[1] == "mcp__my_server__do_thing__2"
    assert all(VALID.match(n) for n in names) and len(set(names)) == len(names)


def _pi(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PI_HOME": str(home), "PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    return subprocess.run(
        [sys.executable, "-m", "pi_cli.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_pi_mcp_subcommands(tmp_path: Path, pi_home: Path) -> None:
    out = _pi(
        tmp_path,
        pi_home,
        "mcp",
        "add",
        "-e",
        "A=1",
        "time",
        "--",
        "uvx",
        "mcp-server-time",
        "--local-timezone",
        "UTC",
    )
    assert out.returncode == 0, out.stderr
    user = json.loads((pi_home / "settings.json").read_text())
    assert user["mcpServers"]["time"] == {
        "command": "uvx",
        "args": ["mcp-server-time", "--local-timezone", "UTC"],
        "env": {"A": "1"},
    }
    out = _pi(
        tmp_path,
        pi_home,
        "mcp",
        "add",
        "-s",
        "project",
        "-t",
        "http",
        "-H",
        "X-K: v",
        "web",
        "http://127.0.0.1:1/mcp",
    )
    assert out.returncode == 0
    assert json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["web"]["headers"] == {
        "X-K": "v"
    }
    listing = _pi(tmp_path, pi_home, "mcp", "list").stdout
    assert "time  [user" in listing and "web  [project" in listing and "pi trust" in listing
    assert (
        json.loads(_pi(tmp_path, pi_home, "mcp", "get", "web").stdout)["url"]
        == "http://127.0.0.1:1/mcp"
    )
    assert _pi(tmp_path, pi_home, "mcp", "remove", "time").returncode == 0
    assert "time" not in json.loads((pi_home / "settings.json").read_text())["mcpServers"]
    assert _pi(tmp_path, pi_home, "mcp", "get", "time").returncode == 1
    assert _pi(tmp_path, pi_home, "mcp", "add", "-t", "carrier-pigeon", "x", "y").returncode == 1


def test_mcp_json_applies_only_in_a_trusted_folder(tmp_path: Path, pi_home: Path) -> None:
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"r": {"command": sys.executable, "args": [ROGUE]}}})
    )
    from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
    from tests.agent_core.scripted_stream import ScriptedStream

    untrusted = CodingAgent(ShellOptions(cwd=tmp_path, stream_fn=ScriptedStream(), no_tools=True))
    assert not untrusted.mcp.servers
    assert any("MCP servers in .mcp.json: r" in n.text for n in untrusted.startup_notices)
    trusted = CodingAgent(
        ShellOptions(cwd=tmp_path, stream_fn=ScriptedStream(), no_tools=True, trust=True)
    )
    assert list(trusted.mcp.servers) == ["r"]
    trusted.mcp.close()
