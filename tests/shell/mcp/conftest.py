"""Helpers for the MCP tests: real servers installed by .ci/run, and the rogue test server."""

from __future__ import annotations

import os
import shutil
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from pi_cli.shell.config.settings import Settings
from tests.agent_core.scripted_stream import ScriptedStream

ROGUE = str(Path(__file__).with_name("rogue_server.py"))
CACHE = Path(os.environ.get("PI_TEST_CACHE", Path.home() / ".cache" / "pi-test"))
SERVERS_VENV = CACHE / "mcp-servers" / "bin"
NPM = Path(os.environ.get("PI_TEST_NPM_CACHE", CACHE / "npm")) / "node_modules"
EVERYTHING = NPM / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"


def rogue(mode: str = "ok", **extra: Any) -> dict[str, Any]:
    """A server entry running the rogue server in ``mode``."""
    return {"command": sys.executable, "args": [ROGUE, mode], **extra}


def python_server(name: str) -> str:
    """The path of an MCP server installed from PyPI by .ci/run (skips when absent)."""
    path = SERVERS_VENV / name
    if not path.exists():
        pytest.skip(f"{name} is not installed in {SERVERS_VENV} (.ci/run installs it)")
    return str(path)


def everything() -> list[str]:
    """The command running @modelcontextprotocol/server-everything (skips without node)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the server-everything tests need it")
    if not EVERYTHING.exists():
        pytest.skip(f"{EVERYTHING} is missing (.ci/run installs it)")
    return [node, str(EVERYTHING)]


def free_port() -> int:
    """A free TCP port on 127.0.0.1."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def mcp_shell(
    tmp_path: Path,
    stream: ScriptedStream,
    servers: dict[str, Any],
    mcp: dict[str, Any] | None = None,
    network: dict[str, Any] | None = None,
    **options: Any,
) -> CodingAgent:
    """A shell in ``tmp_path/project`` whose settings configure ``servers`` (and ``network``)."""
    work = tmp_path / "project"
    work.mkdir(exist_ok=True)
    settings = Settings.model_validate(
        {
            "mcpServers": servers,
            "mcp": mcp or {},
            "network": network or {},
            "permissions": {"defaultMode": "default"},
        }
    )
    options.setdefault("tools", ["read"])
    return CodingAgent(ShellOptions(cwd=work, stream_fn=stream, settings=settings, **options))


from tests.cli.conftest import project, run_pi, server  # noqa: E402, F401 - fixtures
