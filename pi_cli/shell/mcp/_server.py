"""What the shell knows of one MCP server, and the state of all of them in a few words."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pi_cli.shell.events import McpServerStatus, McpStatusChanged
from pi_cli.shell.mcp._config import ServerConfig

if TYPE_CHECKING:
    from agent_core import Tool
    from pi_cli.shell.mcp._connection import ServerConnection
    from pi_cli.shell.mcp._tool import McpTool


class Server:
    """What the shell knows of one server (read on the shell's loop, written on the MCP one)."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.connection: ServerConnection | None = None
        self.tools: list[McpTool] = []
        self.applied: list[Tool] = []
        self.problems: list[str] = []
        self.started: concurrent.futures.Future[None] | None = None
        self.announced = ""
        self.rejected: str | None = None  # the provider refused one of its tool schemas
        self.process: Any = None  # its stdio process, from the moment it is spawned
        self.task: asyncio.Task[Any] | None = None  # its start, on the MCP loop

    @property
    def state(self) -> str:
        """starting, ready, failed or stopped."""
        if self.config.problem or self.rejected:
            return "failed"
        if self.connection is None or self.started is None or not self.started.done():
            return "starting"  # ready only once its tools are built too
        return self.connection.state

    @property
    def error(self) -> str | None:
        """Why it failed, if it did."""
        if self.config.problem or self.rejected:
            return self.config.problem or self.rejected
        return self.connection.error if self.connection is not None else None


def status_event(servers: Mapping[str, Server]) -> McpStatusChanged:
    """Every server's state, as the event front ends receive."""
    return McpStatusChanged(
        servers=[
            McpServerStatus(
                name=name,
                state=server.state,
                error=server.error,
                tools=len(server.tools),
                transport=server.config.transport,
            )
            for name, server in servers.items()
        ]
    )


def footer_text(servers: Mapping[str, Server]) -> str:
    """``MCP 2/3`` (ready of configured; `` !`` when one failed), "" with no servers."""
    if not servers:
        return ""
    states = [server.state for server in servers.values()]
    failed = " !" if "failed" in states else ""
    return f"MCP {states.count('ready')}/{len(states)}{failed}"
