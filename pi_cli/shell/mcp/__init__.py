"""The MCP client: Claude Code's server configuration, servers on their own thread, their tools
as ``mcp__<server>__<tool>``, resources as ``@server:uri`` mentions, prompts as commands.

Only :mod:`.config`, :mod:`.manager` and :mod:`.commands` load at start-up (no SDK); the SDK is
imported on the MCP thread, and only when a server is configured.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from agent_core import AssistantMessage, MessageEnd, TurnStart
from pi_cli.shell.mcp._commands import mcp_commands, mention_transform, register_prompts
from pi_cli.shell.mcp._config import ServerConfig, collect
from pi_cli.shell.mcp.manager import McpManager


class PluginServers(NamedTuple):
    """One plugin's ``mcpServers``: they run as ``plugin_<plugin>_<server>`` (Claude Code's
    ``mcp__plugin_<plugin>_<server>__<tool>`` tool names); ``env`` adds to the variables their
    ``${VAR}`` expand from (``CLAUDE_PLUGIN_ROOT``)."""

    plugin: str
    servers: Mapping[str, Any]
    env: Mapping[str, str]


class HasPluginServers(Protocol):
    """The shell's plugins, as far as MCP sees them."""

    @property
    def mcp_servers(self) -> Sequence[PluginServers]: ...


if TYPE_CHECKING:
    from pi_cli.shell.commands import SlashCommandRegistry
    from pi_cli.shell.context import ShellContext
    from pi_cli.shell.safety import Safety

    class McpHost(ShellContext, Protocol):
        """The shell as its MCP part is built into it."""

        @property
        def safety(self) -> Safety: ...
        @property
        def commands(self) -> SlashCommandRegistry: ...
        @property
        def input_transforms(self) -> list[Callable[[str], Awaitable[str | None]]]: ...
        @property
        def plugins(self) -> HasPluginServers | None: ...


__all__ = [
    "HasPluginServers",
    "McpManager",
    "PluginServers",
    "ServerConfig",
    "configured_servers",
    "setup_mcp",
]


def configured_servers(
    safety: Safety, plugins: Sequence[PluginServers] = ()
) -> tuple[list[ServerConfig], list[str]]:
    """The servers this shell's settings, (trusted) ``.mcp.json``, enabled plugins and front
    end configure."""
    layers = [(layer.label, layer.data) for layer in safety.loaded.layers if layer.kind == "pi"]
    root = safety.cwd if safety.trusted else None
    extra = safety.options.mcp_servers
    env = safety.tools_env()
    configs, problems = collect(layers, root, env, extra=("the ACP client", extra))
    taken = {config.name for config in configs}
    for plugin in plugins:
        renamed = {f"plugin_{plugin.plugin}_{name}": raw for name, raw in plugin.servers.items()}
        found, trouble = collect(
            [(f"plugin {plugin.plugin}", {"mcpServers": renamed})], None, {**env, **plugin.env}
        )
        configs += [config for config in found if config.name not in taken]
        problems += trouble
    return configs, problems


def setup_mcp(shell: McpHost) -> McpManager:
    """Build the shell's MCP part, register ``/mcp`` and start the configured servers."""
    plugins = shell.plugins.mcp_servers if shell.plugins is not None else ()
    configs, problems = configured_servers(shell.safety, plugins)
    for problem in problems:
        shell.notify(problem, "warning")
    own = {tool.name for tool in shell.tools}
    manager = McpManager(
        configs,
        shell.settings.mcp,
        shell.safety.tools_env(),
        shell.cwd,
        shell.notify,
        shell.emit,
        lambda: set(own),
        network=shell.settings.network.config_for(shell.notify, "MCP servers over HTTP"),
    )
    shell.commands.register_all(mcp_commands())
    if not manager.configured:
        return manager
    shell.input_transforms.append(mention_transform(manager))
    manager.on_ready.append(lambda server: register_prompts(shell.commands, manager, server))

    def on_event(event: object) -> None:
        if isinstance(event, TurnStart):  # the boundary: before this turn's model request
            manager.at_turn_start(shell.tools, shell.agent.tools)
        elif isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            message = event.message
            if message.stop_reason == "error" and message.error_message:
                manager.provider_rejected(
                    message.error_message, [t.name for t in shell.agent.tools]
                )

    shell.agent.subscribe(on_event)
    manager.start()
    return manager
