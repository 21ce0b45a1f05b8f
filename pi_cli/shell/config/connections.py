"""The settings of what pi connects to: MCP servers, language servers, the web, telemetry
export and the network (proxy, CAs)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from msgspec import Meta

from pi_cli.shell.config.sections import SettingsSection


class McpSettings(SettingsSection):
    """``mcp``: how long to wait for MCP servers and their calls (seconds).

    ``startup_timeout_s``: one-shot and JSON mode wait this long (from start-up) for servers
    before the first request; ``connect_timeout_s``: a server that has not finished starting
    by then fails; ``tool_timeout_s``: one tool call, resource read or prompt.
    """

    startup_timeout_s: Annotated[
        float,
        Meta(
            ge=0,
            description="How long one-shot and JSON mode wait for servers before the first request.",
        ),
    ] = 5.0
    connect_timeout_s: Annotated[
        float, Meta(gt=0, description="A server not started by then fails.")
    ] = 30.0
    tool_timeout_s: Annotated[
        float, Meta(gt=0, description="One tool call, resource read or prompt.")
    ] = 300.0


class LspSettings(SettingsSection):
    """``lsp``: language servers (see ``docs/lsp.md``)."""

    enabled: Annotated[bool, Meta(description="Use language servers at all.")] = True
    diagnostics: Annotated[
        bool,
        Meta(
            description="After an edit, write or command, append the new errors and warnings of "
            "the changed files to the result."
        ),
    ] = True
    diagnostics_wait_ms: Annotated[
        int,
        Meta(
            ge=0,
            le=60_000,
            description="How long a change waits for the servers' diagnostics (milliseconds).",
        ),
    ] = 1500
    max_diagnostics: Annotated[
        int, Meta(ge=1, le=500, description="Most new problems listed in one result.")
    ] = 20
    navigation: Annotated[
        bool,
        Meta(
            description="Offer the `lsp` tool (definitions, references, hover, symbols, calls) "
            "while a server is ready."
        ),
    ] = True
    rename: Annotated[
        bool,
        Meta(
            description="Offer the `lsp_rename` tool (a symbol renamed across files) while a server "
            "that renames is ready; it changes files, so it is approved and checkpointed like an edit."
        ),
    ] = False
    start_on_read: Annotated[
        bool | None,
        Meta(
            description="A read starts its file's server (unset: in interactive sessions only; an "
            "edit always does)."
        ),
    ] = None
    startup_timeout_s: Annotated[
        float, Meta(gt=0, le=600, description="A server not initialized by then fails.")
    ] = 30.0
    request_timeout_s: Annotated[
        float, Meta(gt=0, le=600, description="How long the `lsp` tool waits for an answer.")
    ] = 10.0
    servers: Annotated[
        dict[str, dict[str, Any]],
        Meta(
            description="Servers by name in Claude Code's `lspServers` shape (`command`, `args`, "
            "`extensionToLanguage`, ...), or changes to a found one (`disabled`, `args`)."
        ),
    ] = {}


class WebFetchSettings(SettingsSection):
    """``webFetch``: private addresses it may reach, its size cap and its timeout."""

    allow_private_hosts: Annotated[
        list[str],
        Meta(
            description="Private hosts it may reach: an address and port (`127.0.0.1:8080`), a "
            "network (`10.0.0.0/8`) or a host name."
        ),
    ] = []
    max_bytes: Annotated[
        int,
        Meta(
            ge=1024,
            le=100 * 1024 * 1024,
            description="At most this much of a response body is read; the rest is cut.",
        ),
    ] = 5 * 1024 * 1024
    timeout_s: Annotated[
        float, Meta(gt=0, le=600, description="The whole fetch, redirects included.")
    ] = 30.0


class WebSearchSettings(SettingsSection):
    """``webSearch``: the web_search tool's backend (the tool is off without one)."""

    backend: Annotated[
        Literal["searxng", "brave", "tavily"] | None,
        Meta(
            description="`searxng` (a self-hosted instance, no account), `brave` or `tavily` (keyed "
            "APIs: `BRAVE_API_KEY` / `TAVILY_API_KEY`, held like provider keys); unset: no "
            "web_search tool."
        ),
    ] = None
    url: Annotated[
        str | None,
        Meta(
            description="The SearXNG instance's URL (required for `searxng`; it must allow the json "
            "format), or another endpoint for the keyed APIs."
        ),
    ] = None
    max_results: Annotated[
        int, Meta(ge=1, le=10, description="Results a search returns unless the model asks.")
    ] = 5


class TelemetrySettings(SettingsSection):
    """``telemetry``: OpenTelemetry export of runs, model and tool calls (off by default)."""

    enabled: Annotated[
        bool,
        Meta(
            description="Export traces and metrics over OTLP/HTTP (`PI_TELEMETRY=1` also turns it on)."
        ),
    ] = False
    endpoint: Annotated[
        str | None,
        Meta(
            description="The OTLP/HTTP base URL (`/v1/traces` and `/v1/metrics` are added); unset: "
            "`OTEL_EXPORTER_OTLP_ENDPOINT`, else `http://localhost:4318`."
        ),
    ] = None
    headers: Annotated[
        dict[str, str], Meta(description="Headers sent with each export (an API key, a tenant).")
    ] = {}
    log_prompts: Annotated[
        bool,
        Meta(
            description="Also export prompts, answers, tool arguments and tool output (off: only "
            "names, ids, durations, tokens, cost and outcomes leave the machine)."
        ),
    ] = False
    service_name: Annotated[str, Meta(description="The `service.name` of the resource.")] = "pi"
    metrics_interval_s: Annotated[
        int, Meta(ge=1, description="Seconds between metric exports (and one at exit).")
    ] = 60


class NetworkSettings(SettingsSection):
    """``network``: the proxy and extra CAs of everything pi sends out (web_fetch: see
    ``docs/network.md``)."""

    proxy: Annotated[
        str | None,
        Meta(
            description="A proxy URL (`http://user:password@proxy:3128`, https or socks5) for model "
            "requests, MCP servers over HTTP and web_search; wins over `HTTPS_PROXY`."
        ),
    ] = None
    no_proxy: Annotated[
        list[str],
        Meta(
            description="Hosts reached directly, added to `NO_PROXY`: a name and its subdomains, "
            "`host:port`, an address or a CIDR network, `*` for all."
        ),
    ] = []
    ca_file: Annotated[
        str | None,
        Meta(
            description="A PEM bundle of extra certificate authorities trusted beside the system "
            "store (a TLS-inspecting proxy's CA)."
        ),
    ] = None

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
