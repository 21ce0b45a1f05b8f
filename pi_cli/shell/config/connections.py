"""The settings of what pi connects to: MCP servers, language servers, the web, telemetry
export and the network (proxy, CAs)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from pi_cli.shell.config.sections import SettingsSection


class McpSettings(SettingsSection):
    """``mcp``: how long to wait for MCP servers and their calls (seconds).

    ``startup_timeout_s``: one-shot and JSON mode wait this long (from start-up) for servers
    before the first request; ``connect_timeout_s``: a server that has not finished starting
    by then fails; ``tool_timeout_s``: one tool call, resource read or prompt.
    """

    startup_timeout_s: float = Field(
        default=5.0,
        ge=0,
        description="How long one-shot and JSON mode wait for servers before the first request.",
    )
    connect_timeout_s: float = Field(
        default=30.0, gt=0, description="A server not started by then fails."
    )
    tool_timeout_s: float = Field(
        default=300.0, gt=0, description="One tool call, resource read or prompt."
    )


class LspSettings(SettingsSection):
    """``lsp``: language servers (see ``docs/lsp.md``)."""

    enabled: bool = Field(default=True, description="Use language servers at all.")
    diagnostics: bool = Field(
        default=True,
        description="After an edit, write or command, append the new errors and warnings of "
        "the changed files to the result.",
    )
    diagnostics_wait_ms: int = Field(
        default=1500,
        ge=0,
        le=60_000,
        description="How long a change waits for the servers' diagnostics (milliseconds).",
    )
    max_diagnostics: int = Field(
        default=20, ge=1, le=500, description="Most new problems listed in one result."
    )
    navigation: bool = Field(
        default=True,
        description="Offer the `lsp` tool (definitions, references, hover, symbols, calls) "
        "while a server is ready.",
    )
    rename: bool = Field(
        default=False,
        description="Offer the `lsp_rename` tool (a symbol renamed across files) while a server "
        "that renames is ready; it changes files, so it is approved and checkpointed like an edit.",
    )
    start_on_read: bool | None = Field(
        default=None,
        description="A read starts its file's server (unset: in interactive sessions only; an "
        "edit always does).",
    )
    startup_timeout_s: float = Field(
        default=30.0, gt=0, le=600, description="A server not initialized by then fails."
    )
    request_timeout_s: float = Field(
        default=10.0, gt=0, le=600, description="How long the `lsp` tool waits for an answer."
    )
    servers: dict[str, dict[str, Any]] = Field(
        default_factory=dict,
        description="Servers by name in Claude Code's `lspServers` shape (`command`, `args`, "
        "`extensionToLanguage`, ...), or changes to a found one (`disabled`, `args`).",
    )


class WebFetchSettings(SettingsSection):
    """``webFetch``: private addresses it may reach, its size cap and its timeout."""

    allow_private_hosts: list[str] = Field(
        default_factory=list,
        description="Private hosts it may reach: an address and port (`127.0.0.1:8080`), a "
        "network (`10.0.0.0/8`) or a host name.",
    )
    max_bytes: int = Field(
        default=5 * 1024 * 1024,
        ge=1024,
        le=100 * 1024 * 1024,
        description="At most this much of a response body is read; the rest is cut.",
    )
    timeout_s: float = Field(
        default=30.0, gt=0, le=600, description="The whole fetch, redirects included."
    )


class WebSearchSettings(SettingsSection):
    """``webSearch``: the web_search tool's backend (the tool is off without one)."""

    backend: Literal["searxng", "brave", "tavily"] | None = Field(
        default=None,
        description="`searxng` (a self-hosted instance, no account), `brave` or `tavily` (keyed "
        "APIs: `BRAVE_API_KEY` / `TAVILY_API_KEY`, held like provider keys); unset: no "
        "web_search tool.",
    )
    url: str | None = Field(
        default=None,
        description="The SearXNG instance's URL (required for `searxng`; it must allow the json "
        "format), or another endpoint for the keyed APIs.",
    )
    max_results: int = Field(
        default=5, ge=1, le=10, description="Results a search returns unless the model asks."
    )


class TelemetrySettings(SettingsSection):
    """``telemetry``: OpenTelemetry export of runs, model and tool calls (off by default)."""

    enabled: bool = Field(
        default=False,
        description="Export traces and metrics over OTLP/HTTP (`PI_TELEMETRY=1` also turns it on).",
    )
    endpoint: str | None = Field(
        default=None,
        description="The OTLP/HTTP base URL (`/v1/traces` and `/v1/metrics` are added); unset: "
        "`OTEL_EXPORTER_OTLP_ENDPOINT`, else `http://localhost:4318`.",
    )
    headers: dict[str, str] = Field(
        default_factory=dict, description="Headers sent with each export (an API key, a tenant)."
    )
    log_prompts: bool = Field(
        default=False,
        description="Also export prompts, answers, tool arguments and tool output (off: only "
        "names, ids, durations, tokens, cost and outcomes leave the machine).",
    )
    service_name: str = Field(default="pi", description="The `service.name` of the resource.")
    metrics_interval_s: int = Field(
        default=60, ge=1, description="Seconds between metric exports (and one at exit)."
    )


class NetworkSettings(SettingsSection):
    """``network``: the proxy and extra CAs of everything pi sends out (web_fetch: see
    ``docs/network.md``)."""

    proxy: str | None = Field(
        default=None,
        description="A proxy URL (`http://user:password@proxy:3128`, https or socks5) for model "
        "requests, MCP servers over HTTP and web_search; wins over `HTTPS_PROXY`.",
    )
    no_proxy: list[str] = Field(
        default_factory=list,
        description="Hosts reached directly, added to `NO_PROXY`: a name and its subdomains, "
        "`host:port`, an address or a CIDR network, `*` for all.",
    )
    ca_file: str | None = Field(
        default=None,
        description="A PEM bundle of extra certificate authorities trusted beside the system "
        "store (a TLS-inspecting proxy's CA).",
    )

    def config(self) -> Any:
        """The :class:`agent_core.net.NetworkConfig` of these settings (None: all defaults)."""
        if not (self.proxy or self.no_proxy or self.ca_file):
            return None
        from agent_core.net import NetworkConfig

        return NetworkConfig(proxy=self.proxy, no_proxy=tuple(self.no_proxy), ca_file=self.ca_file)

    def config_for(self, notify: Any, who: str) -> Any:
        """:meth:`config` for ``who``'s clients; a bad value is said and the defaults used."""
        if not (self.proxy or self.no_proxy or self.ca_file):
            return None  # nothing set: agent_core.net is not even imported
        from agent_core.net import NetworkConfigError

        try:
            return self.config()
        except NetworkConfigError as exc:
            notify(f"{who} ignore the network settings: {exc}", "warning")
            return None
