"""The shell's MCP part: configured servers, their state, and when their tools join the agent.

Built by the CodingAgent with the configured servers; with none it does nothing and imports
nothing. Otherwise the servers start at once, concurrently, on the MCP thread
(:mod:`.runtime`). Nothing here blocks the shell's loop: a server's tools are built on the MCP
thread when it is ready, and they join the agent only at a turn boundary (:meth:`at_turn_start`,
before the model request, never during a tool batch), with a notice saying so. One-shot and
JSON mode call :meth:`wait_ready` first (bounded by ``mcp.startupTimeoutS``).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core import AbortSignal, Tool, ToolResult
from agent_core.tool import ToolError
from pi_cli.shell.events import McpStatusChanged, ShellEvent
from pi_cli.shell.mcp._config import ServerConfig
from pi_cli.shell.mcp._server import Server, footer_text, status_event

if TYPE_CHECKING:
    from pi_cli.shell.config.settings import McpSettings
    from pi_cli.shell.context import Level
    from pi_cli.shell.mcp._connection import ServerConnection
    from pi_cli.shell.mcp._runtime import McpRuntime


class McpManager:
    """Every configured server of one shell."""

    def __init__(
        self,
        configs: list[ServerConfig],
        settings: McpSettings,
        env: Mapping[str, str],
        cwd: Path,
        notify: Callable[[str, Level], None],
        emit: Callable[[ShellEvent], None],
        reserved: Callable[[], set[str]],
        network: Any = None,
    ) -> None:
        self.network = network  # agent_core.net.NetworkConfig for HTTP servers (None: defaults)
        self.servers = {config.name: Server(config) for config in configs}
        self.settings = settings
        self.env = dict(env)
        self.cwd = cwd
        self.notify = notify
        self.emit = emit
        self.reserved = reserved
        self.runtime: McpRuntime | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._started_at = 0.0
        self.on_ready: list[Callable[[Server], None]] = []  # prompt commands, front ends

    @property
    def configured(self) -> bool:
        """Whether any server is configured."""
        return bool(self.servers)

    # ------------------------------------------------------------------ start

    def start(self) -> None:
        """Start every server now (no-op without servers). Safe before any loop runs."""
        if not self.servers or self.runtime is not None:
            return
        from pi_cli.shell.mcp._runtime import McpRuntime

        self.bind_loop()
        self._started_at = time.monotonic()
        self.runtime = McpRuntime()
        for server in self.servers.values():
            self._launch(server)

    def _launch(self, server: Server) -> None:
        if server.config.problem or self.runtime is None:
            return
        server.started = self.runtime.submit(lambda: self._start_one(server))
        server.started.add_done_callback(lambda _: self._changed())

    async def _start_one(self, server: Server) -> None:
        from pi_cli.shell.mcp._process import spawn

        server.task = asyncio.current_task()
        config, process, problem = server.config, None, None
        if config.transport == "stdio":  # first, so servers boot while the SDK is imported
            env = {**self.env, **config.env}
            try:
                process = await spawn(
                    config.command, list(config.args), env, config.cwd or str(self.cwd)
                )
                server.process = process
            except (OSError, ValueError) as exc:
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                problem = f"cannot run {config.command!r}: {reason}"
        from pi_cli.shell.mcp._connection import ServerConnection  # the SDK (once, ~1 s)

        connection = ServerConnection(config, self.env, str(self.cwd), process)
        connection.network = self.network
        server.connection = connection
        if problem is not None:
            connection.state, connection.error = "failed", problem
            return
        await connection.start(self.settings.connect_timeout_s)
        if connection.state == "ready":
            self._build_tools(server, connection)

    def _build_tools(self, server: Server, connection: ServerConnection) -> None:
        from agent_core.json_schema import SchemaError
        from pi_cli.shell.mcp._names import tool_name
        from pi_cli.shell.mcp._tool import McpTool

        with self._lock:
            taken = self.reserved() | {
                t.name
                for other in self.servers.values()
                if other is not server
                for t in other.tools
            }
            built: list[McpTool] = []
            for spec in connection.tools:
                try:
                    name = tool_name(server.config.name, spec.name, taken)
                    built.append(McpTool(name, server.config.name, spec, self.call_tool))
                except SchemaError as exc:
                    server.problems.append(f"tool {spec.name} left out: {exc}")
            server.tools = built

    def bind_loop(self) -> None:
        """Remember the shell's running loop (for announcements from the MCP thread)."""
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._changed()

    def _changed(self) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(self.announce)
            except RuntimeError:  # the loop closed meanwhile
                pass

    def announce(self) -> None:
        """Tell the user about servers whose state changed since the last announcement."""
        changed = False
        for server in self.servers.values():
            key = f"{server.state}:{server.error}"
            if key == server.announced or server.state == "starting":
                continue
            server.announced, changed = key, True
            name = server.config.name
            if server.state == "ready":
                count = len(server.tools)
                self.notify(
                    f"MCP server {name} is ready: {count} tool{'s' * (count != 1)}"
                    " (available from the next turn).",
                    "info",
                )
                for problem in server.problems:
                    self.notify(f"MCP server {name}: {problem}", "warning")
                for hook in self.on_ready:
                    hook(server)
            elif server.state == "failed":
                self.notify(
                    f"MCP server {name} failed: {server.error}. pi goes on without it "
                    f"(/mcp restart {name} to try again).",
                    "warning",
                )
        if changed:
            self.emit(self.status_event())

    def status_event(self) -> McpStatusChanged:
        """Every server's state, for front ends (footer, ``/mcp``, RPC)."""
        return status_event(self.servers)

    def footer(self) -> str:
        """``MCP 2/3`` (ready of configured; ``!`` when one failed), "" with no servers."""
        return footer_text(self.servers)

    async def wait_ready(self, timeout_s: float | None = None) -> None:
        """Wait until every server has started or failed, at most ``mcp.startupTimeoutS``
        counted from the start (one-shot and JSON mode, before the first request)."""
        self.bind_loop()
        pending = [
            asyncio.wrap_future(s.started) for s in self.servers.values() if s.started is not None
        ]
        if not pending:
            return
        limit = self.settings.startup_timeout_s if timeout_s is None else timeout_s
        left = max(0.0, limit - (time.monotonic() - self._started_at))
        await asyncio.wait(pending, timeout=left)
        self.announce()
        for server in self.servers.values():
            if server.state == "starting":
                self.notify(
                    f"MCP server {server.config.name} is still starting after {limit:g}s "
                    "(mcp.startupTimeoutS): this run goes on without it.",
                    "warning",
                )

    # ------------------------------------------------------------------ turn boundary

    def at_turn_start(self, tools: list[Tool], agent_tools: list[Tool]) -> None:
        """Add ready servers' tools and drop those of failed ones (in place, both lists)."""
        self.announce()
        for server in self.servers.values():
            wanted: list[Tool] = list(server.tools) if server.state == "ready" else []
            if [t.name for t in wanted] == [t.name for t in server.applied]:
                continue
            for target in (tools, agent_tools):
                target[:] = [t for t in target if t not in server.applied] + [
                    t for t in wanted if t not in target
                ]
            added = [t.name for t in wanted if t not in server.applied]
            server.applied = wanted
            name = server.config.name
            if added:
                shown = ", ".join(added[:6]) + (" …" if len(added) > 6 else "")
                self.notify(f"MCP tools of {name} available from this turn: {shown}", "info")
            elif not wanted:
                self.notify(f"MCP server {name} is gone: its tools were removed.", "warning")

    def provider_rejected(self, error: str, sent: list[str]) -> None:
        """A model request failed with ``error``: a server whose tool it names (by name, or as
        ``tools.N`` of the ``sent`` tool names) loses its tools for this session."""
        import re

        named = {sent[int(n)] for n in re.findall(r"tools[.\[](\d+)", error) if int(n) < len(sent)}
        for name, server in self.servers.items():
            tools = {t.name for t in server.applied}
            if not tools or not (tools & named or any(t in error for t in tools)):
                continue
            server.rejected = f"the provider rejected its tools ({error[:300]})"
            self.notify(
                f"MCP server {name}: the provider rejected one of its tool schemas, so its tools "
                f"are removed for this session (/mcp restart {name} to try again).",
                "warning",
            )
        self._changed()

    # ------------------------------------------------------------------ calls

    def connection(self, name: str) -> ServerConnection:
        """The live connection of server ``name`` (raises ToolError)."""
        server = self.servers.get(name)
        if server is None:
            raise ToolError(f"no MCP server named {name!r}")
        if server.connection is None or server.state != "ready":
            why = f": {server.error}" if server.error else ""
            raise ToolError(f"MCP server {name} is {server.state}{why}")
        return server.connection

    async def run(self, factory: Callable[[], Any], cancel: AbortSignal | None = None) -> Any:
        """Await ``factory()`` on the MCP thread; an abort cancels it (raises ToolError)."""
        from pi_cli.shell.mcp._connection import McpError

        if self.runtime is None:
            raise ToolError("MCP servers are stopped (pi is shutting down)")
        task = asyncio.ensure_future(self.runtime.call(factory))
        remove = cancel.on_abort(task.cancel) if cancel is not None else (lambda: None)
        try:
            return await task
        except McpError as exc:
            self._changed()  # a call that found the server dead: announce it
            raise ToolError(str(exc)) from None
        finally:
            remove()

    async def call_tool(
        self, server: str, tool: str, arguments: dict[str, Any], cancel: AbortSignal
    ) -> tuple[ToolResult, bool]:
        """Call one tool (the :class:`~.tool.McpTool` caller)."""
        from pi_cli.shell.mcp._results import tool_result

        connection = self.connection(server)
        timeout = self.settings.tool_timeout_s
        result = await self.run(lambda: connection.call_tool(tool, arguments, timeout), cancel)
        return tool_result(result, server, tool)

    def resource_names(self) -> list[tuple[str, Any]]:
        """(server, resource) of every ready server."""
        return [
            (name, resource)
            for name, server in self.servers.items()
            if server.state == "ready" and server.connection is not None
            for resource in server.connection.resources
        ]

    # ------------------------------------------------------------------ control

    async def restart(self, name: str) -> str:
        """Stop and start one server again; returns what happened, in words."""
        server = self.servers.get(name)
        if server is None:
            raise KeyError(name)
        if self.runtime is None:
            self.start()
        else:
            old = server.connection
            if old is not None:
                await self.runtime.call(old.close)
            server.tools, server.problems, server.announced = [], [], ""
            server.rejected = None
            self._launch(server)
        if server.started is not None:
            await asyncio.wrap_future(server.started)
        self.announce()
        if server.state == "ready":
            return f"Restarted {name}: {len(server.tools)} tools (available from the next turn)."
        return f"{name} did not start: {server.error}"

    def close(self) -> None:
        """Stop every server and the MCP thread (their process groups are killed)."""
        runtime, self.runtime = self.runtime, None
        if runtime is None:
            return

        async def close_all() -> None:
            starting = [s.task for s in self.servers.values() if s.task and not s.task.done()]
            for task in starting:  # still starting: stop that first (a spawn is undone)
                task.cancel()
            await asyncio.gather(*starting, return_exceptions=True)
            connections = [s.connection for s in self.servers.values() if s.connection]
            await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)
            for server in self.servers.values():  # spawned, but no connection yet
                process = server.process
                if process is not None and server.connection is None:
                    process.kill_tree()
                    try:
                        await asyncio.wait_for(process.process.wait(), 1.0)
                    except (TimeoutError, asyncio.CancelledError):
                        pass

        runtime.stop(close_all, 5.0)
