"""One MCP server connection, run inside the MCP thread (:mod:`.runtime`): the SDK lives here.

The connection task owns the SDK ``Client`` for its whole life (anyio scopes must close in the
task that opened them); calls from other tasks go through the client. Every failure becomes a
:class:`McpError` whose message names the server and says what happened, with the end of the
server's stderr when that helps.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp import Client
from mcp.shared.exceptions import MCPError

from pi_cli import __version__
from pi_cli.shell.mcp._config import ServerConfig
from pi_cli.shell.mcp._process import StdioProcess
from pi_cli.shell.mcp._stdio import stdio_transport

State = Literal["starting", "ready", "failed", "stopped"]
MAX_PAGES = 50


class McpError(Exception):
    """A server or call failed; the message is for the user and the model."""


class ServerConnection:
    """The life of one server: start, list, call, stop (all on the MCP thread's loop)."""

    def __init__(
        self,
        config: ServerConfig,
        env: Mapping[str, str],
        cwd: str,
        process: StdioProcess | None = None,
    ) -> None:
        self.config = config
        self.env = env
        self.cwd = cwd
        self.state: State = "starting"
        self.error: str | None = None
        self.tools: list[types.Tool] = []
        self.resources: list[types.Resource] = []
        self.prompts: list[types.Prompt] = []
        self.instructions: str | None = None
        self.server_name = ""
        self.client: Client | None = None
        self.process = process  # a stdio server, started before the SDK was imported
        self.network: Any = None  # agent_core.net.NetworkConfig: proxy and CAs for HTTP servers
        self._stop = asyncio.Event()
        self._closing = False
        self._task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ life

    async def start(self, timeout_s: float) -> None:
        """Connect, initialize and list within ``timeout_s``; ends ready or failed."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        ready.add_done_callback(lambda f: f.cancelled() or f.exception())  # always retrieved
        self._task = asyncio.ensure_future(self._run(ready))
        try:
            await asyncio.wait_for(asyncio.shield(ready), timeout_s)
        except TimeoutError:
            if self._closing:  # pi is shutting down: stopped, not failed
                return
            await self.close()
            self.state = "failed"
            self.error = f"did not finish starting within {timeout_s:g}s (mcp.connectTimeoutS)"
            if self.process is not None and self.process.protocol_note:
                self.error += f"; {self.process.protocol_note}"
        except McpError as exc:
            if self._closing:
                return
            await self.close()
            self.state, self.error = "failed", str(exc)

    def _fail(self, text: str) -> None:
        if not self._closing and self.state != "failed":
            self.state, self.error = "failed", text

    async def _run(self, ready: asyncio.Future[None]) -> None:
        try:
            client = Client(
                self._transport(),
                mode="legacy",
                client_info=types.Implementation(name="pi", version=__version__),
                cache=None,
                message_handler=self._on_message,
            )
            async with client:
                self.client = client
                await self._list(client)
                self.state = "ready"
                if not ready.done():
                    ready.set_result(None)
                await self._watch()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # noqa: BLE001 - an ExceptionGroup from anyio included
            error = McpError(self._explain(exc))
            if not ready.done():
                ready.set_exception(error)
            else:
                self._fail(str(error))
        finally:
            self.client = None
            if not ready.done():
                ready.set_exception(McpError(self._explain(None)))
            elif self.state == "ready":
                self._fail(self._explain(None))

    def _transport(self) -> contextlib.AbstractAsyncContextManager[Any]:
        config = self.config
        if config.transport == "stdio":
            return self._stdio()
        if config.transport == "sse":
            from mcp.client.sse import sse_client

            return sse_client(
                config.url, headers=dict(config.headers), httpx_client_factory=self._http_client
            )
        from mcp.client.streamable_http import streamable_http_client

        client = self._http_client(headers=dict(config.headers))
        return streamable_http_client(config.url, http_client=client)

    def _http_client(
        self, headers: dict[str, str] | None = None, timeout: Any = None, auth: Any = None
    ) -> Any:
        """The SDK's HTTP client, through ``network.proxy``/``*_PROXY`` and trusting the
        system store plus ``network.caFile`` (the SDK's own factory knows neither)."""
        import httpx2
        from mcp.shared._httpx_utils import MCP_DEFAULT_SSE_READ_TIMEOUT, MCP_DEFAULT_TIMEOUT

        from agent_core.net import proxy_for, ssl_context

        return httpx2.AsyncClient(
            headers=headers,
            timeout=timeout
            or httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT),
            auth=auth,
            proxy=proxy_for(self.config.url, self.network),
            verify=ssl_context(self.network),
            trust_env=False,
        )

    @contextlib.asynccontextmanager
    async def _stdio(self) -> Any:
        if self.process is None:
            raise McpError("the server process was not started")
        async with stdio_transport(self.process) as streams:
            yield streams

    async def _watch(self) -> None:
        """Until stopped; a stdio server that exits (or breaks the protocol) ends it."""
        process = self.process
        stop = asyncio.ensure_future(self._stop.wait())
        waits: set[asyncio.Future[Any]] = {stop}
        if process is not None:
            waits.add(asyncio.ensure_future(process.process.wait()))
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
        if not self._stop.is_set():
            self._fail(self._explain(None))

    async def _on_message(self, message: Any) -> None:
        if isinstance(message, Exception):  # a transport fault the SDK hands over
            self._fail(f"the connection broke: {message}")
        await anyio.lowlevel.checkpoint()

    async def _list(self, client: Client) -> None:
        capabilities = client.server_capabilities
        info = client.server_info
        self.server_name = info.name if info is not None else ""
        self.instructions = client.instructions
        self.tools = await _all(client.list_tools, "tools") if capabilities.tools else []
        if capabilities.resources:
            with contextlib.suppress(MCPError):  # optional: a failing list is no failed server
                self.resources = await _all(client.list_resources, "resources")
        if capabilities.prompts:
            with contextlib.suppress(MCPError):
                self.prompts = await _all(client.list_prompts, "prompts")

    async def close(self) -> None:
        """Stop the server (idempotent); its process group is killed."""
        self._closing = True
        if self.state in ("ready", "starting"):
            self.state = "stopped"
        self._stop.set()
        task = self._task
        if task is not None and not task.done() and self.client is None:
            task.cancel()  # still starting (a hung initialize): nothing to wind down politely
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), 3.0)
            except (TimeoutError, Exception):  # noqa: BLE001
                task.cancel()
        if self.process is not None:
            self.process.kill_tree()
            with contextlib.suppress(TimeoutError):  # reaped while this loop still runs
                await asyncio.wait_for(self.process.process.wait(), 1.0)

    # ------------------------------------------------------------------ requests

    def _client(self) -> Client:
        if self.client is None or self.state != "ready":
            why = f" ({self.error})" if self.error else ""
            raise McpError(f"MCP server {self.config.name} is not running{why}")
        return self.client

    async def call_tool(
        self, tool: str, arguments: dict[str, Any], timeout_s: float
    ) -> types.CallToolResult:
        """Call ``tool``; raises :class:`McpError` (time-out, server gone, protocol error)."""
        client = self._client()
        try:
            with anyio.fail_after(timeout_s):
                return await client.call_tool(tool, arguments)
        except TimeoutError:
            raise McpError(
                f"MCP tool {tool} of {self.config.name} did not answer within {timeout_s:g}s "
                "(mcp.toolTimeoutS); the request was cancelled"
            ) from None
        except MCPError as exc:
            if await self._gone():
                raise McpError(self._explain(exc)) from None
            raise McpError(f"MCP server {self.config.name} refused the call: {exc}") from None
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream) as exc:
            raise McpError(self._explain(exc)) from None

    async def _gone(self) -> bool:
        """Whether the server is gone (a closed connection: give its exit a moment to show)."""
        process = self.process
        if process is not None and process.process.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(process.process.wait()), 1.0)
        if process is not None and (
            process.protocol_error or process.process.returncode is not None
        ):
            self._fail(self._explain(None))
            return True
        return self.state != "ready"

    async def read_resource(self, uri: str, timeout_s: float) -> types.ReadResourceResult:
        """Read one resource (raises :class:`McpError`)."""
        client = self._client()
        try:
            with anyio.fail_after(timeout_s):
                return await client.read_resource(uri)
        except TimeoutError:
            raise McpError(f"{self.config.name} did not send {uri} within {timeout_s:g}s") from None
        except MCPError as exc:
            raise McpError(f"{self.config.name} cannot read {uri}: {exc}") from None

    async def get_prompt(
        self, name: str, arguments: dict[str, str], timeout_s: float
    ) -> types.GetPromptResult:
        """Fetch one prompt (raises :class:`McpError`)."""
        client = self._client()
        try:
            with anyio.fail_after(timeout_s):
                return await client.get_prompt(name, arguments)
        except TimeoutError:
            raise McpError(f"{self.config.name} did not send the prompt {name} in time") from None
        except MCPError as exc:
            raise McpError(f"{self.config.name} refused the prompt {name}: {exc}") from None

    # ------------------------------------------------------------------ words

    def _explain(self, exc: BaseException | None) -> str:
        """Why the server is unusable, in one line."""
        process = self.process
        parts: list[str] = []
        if process is not None and process.protocol_error:
            parts.append(process.protocol_error)
        elif process is not None and process.process.returncode not in (None, 0):
            parts.append(f"the server {process.exit_text()}")
        elif exc is not None:
            parts.append(_exception_text(exc))
        elif process is not None and process.process.returncode is not None:
            parts.append(f"the server {process.exit_text()}")
        else:
            parts.append("the connection closed")
        if process is not None and process.protocol_note and not process.protocol_error:
            parts.append(process.protocol_note)
        if process is not None and process.stderr_tail():
            parts.append(f"stderr: {process.stderr_tail()}")
        return "; ".join(parts)


def _exception_text(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, McpError):
        return str(exc)
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) <= 300 else text[:299] + "…"


async def _all(method: Any, field: str) -> list[Any]:
    """Every page of a list request (bounded: a server paging forever stops at MAX_PAGES)."""
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await method(cursor=cursor)
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            break
    return items
