"""The MCP client: Claude Code's server configuration, servers on their own thread, their tools
as ``mcp__<server>__<tool>``, resources as ``@server:uri`` mentions, prompts as commands.

Only :mod:`.config`, :mod:`.manager` and :mod:`.commands` load at start-up (no SDK); the SDK is
imported on the MCP thread, and only when a server is configured.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

from agent_core import AssistantMessage, MessageEnd, TurnStart
from pi_cli.shell.mcp.commands import mcp_commands, mention_transform, register_prompts
from pi_cli.shell.mcp.config import ServerConfig, collect
from pi_cli.shell.mcp.manager import McpManager

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


__all__ = ["McpManager", "ServerConfig", "configured_servers", "setup_mcp"]


def configured_servers(safety: Safety) -> tuple[list[ServerConfig], list[str]]:
    """The servers this shell's settings, (trusted) ``.mcp.json`` and front end configure."""
    layers = [(layer.label, layer.data) for layer in safety.loaded.layers if layer.kind == "pi"]
    root = safety.cwd if safety.trusted else None
    extra = safety.options.mcp_servers
    return collect(layers, root, safety.tools_env(), extra=("the ACP client", extra))


def setup_mcp(shell: McpHost) -> McpManager:
    """Build the shell's MCP part, register ``/mcp`` and start the configured servers."""
    configs, problems = configured_servers(shell.safety)
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
