"""Building features into a shell: the slash commands every shell has, checkpoints
(``/rewind``), the durable queue, the session commands (``/name``, ``/label``, ``/export``) and
the session's goal (``/goal``)."""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.shell.builtin_commands import builtin_commands
from pi_cli.shell.checkpoints.commands import rewind_commands
from pi_cli.shell.checkpoints.manager import Checkpoints
from pi_cli.shell.commands import CommandResult, ShellAPI, SlashCommand, SlashCommandRegistry
from pi_cli.shell.compaction import compaction_commands
from pi_cli.shell.events import ShellEvent
from pi_cli.shell.export_html.commands import export_commands
from pi_cli.shell.goals import Goals, GoalShell, attach_goals
from pi_cli.shell.memory import Memory, MemoryHost, attach_memory
from pi_cli.shell.monitors import MonitorShell, attach_monitors
from pi_cli.shell.options import ShellOptions
from pi_cli.shell.permissions import permission_commands
from pi_cli.shell.prompt.init_command import init_commands
from pi_cli.shell.prompt.sources import PromptSources
from pi_cli.shell.reloading import reload_commands
from pi_cli.shell.session.branching import branching_commands
from pi_cli.shell.session.commands import session_commands
from pi_cli.shell.session.durable_queue import DurableQueue

if TYPE_CHECKING:
    from pi_cli.shell.permissions import PermissionControl
    from pi_cli.shell.plugins import PluginHost
    from pi_cli.shell.plugins.attach import Plugins


class FeatureHost(GoalShell, MemoryHost, MonitorShell, Protocol):
    """The shell, as the session features are built into it."""

    @property
    def commands(self) -> SlashCommandRegistry: ...
    @property
    def input_transforms(self) -> list[Callable[[str], Awaitable[str | None]]]: ...
    @property
    def options(self) -> ShellOptions: ...
    @property
    def permissions(self) -> PermissionControl: ...
    def subscribe(self, listener: Callable[[ShellEvent], None]) -> Callable[[], None]: ...


def attach_session_parts(
    shell: FeatureHost,
) -> tuple[Checkpoints, DurableQueue, Goals, Memory]:
    """Build them (after the hooks: checkpoints wrap their ``before_tool_call``, memory its
    ``after_tool_call``; after the agent tools, the compactor and the policy: a goal's rounds
    use them)."""
    options = shell.options
    checkpoints = Checkpoints(
        shell,
        rewindable=options.persist_session or not options.one_shot,
        read_only_bash=lambda command: shell.permissions.engine.proves_read_only(command),
    )
    shell.subscribe(checkpoints.on_event)

    async def settled(text: str) -> str:
        await checkpoints.settle()  # the last run's snapshot is recorded before the next input
        return text

    shell.input_transforms.insert(0, settled)
    queue = DurableQueue(shell, offer=shell.options.offer_stored_queue)
    shell.commands.register_all(session_commands(), export_commands(), rewind_commands())
    attach_monitors(shell)  # the monitor tool's lines into the conversation, /monitors
    return checkpoints, queue, attach_goals(shell), attach_memory(shell)


def attach_telemetry(shell: FeatureHost) -> Any:
    """OpenTelemetry export when ``telemetry`` is enabled (or ``PI_TELEMETRY=1``), else None;
    nothing of it is imported otherwise."""

    if not (shell.settings.telemetry.enabled or os.environ.get("PI_TELEMETRY") == "1"):
        return None
    from pi_cli.shell.telemetry import attach_telemetry as attach

    return attach(shell)


def attach_plugins(shell: PluginHost) -> Plugins | None:
    """Claude Code plugins (``--plugin-dir``, ``enabledPlugins``) built into ``shell``, and
    ``/plugin``; nothing of them is imported when none is configured (None then)."""
    shell.commands.register(_plugin_command())
    reloaders = getattr(shell, "reloaders", None)  # /reload re-reads them (or loads the first)
    if isinstance(reloaders, list):
        reloaders.append(_reload_plugins)
    if not _plugins_configured(shell):
        return None
    from pi_cli.shell.plugins.attach import Plugins

    plugins = Plugins()
    plugins.load(shell)
    return plugins


def _plugins_configured(shell: PluginHost) -> bool:
    enabled = any(layer.data.get("enabledPlugins") for layer in shell.safety.loaded.layers)
    return bool(shell.options.plugin_dirs or enabled)


def _reload_plugins(shell: PluginHost) -> list[str]:
    """``/reload``: the plugins read again; the first ones loaded when there were none."""
    plugins: Plugins | None = getattr(shell, "plugins", None)
    if plugins is not None:
        return plugins.reload(shell)
    if not _plugins_configured(shell):
        return []
    from pi_cli.shell.plugins.attach import Plugins

    plugins = Plugins()
    setattr(shell, "plugins", plugins)  # noqa: B010 - the shell's attribute, set once here
    plugins.load(shell)
    return [f"plugins: {', '.join(p.name for p in plugins.loaded) or 'none'}"]


def _plugin_command() -> SlashCommand:
    async def handler(shell: ShellAPI, args: str) -> CommandResult:
        from pi_cli.shell.plugins.commands import plugin_command

        return await plugin_command(shell, args)

    return SlashCommand(
        "plugin",
        "Claude Code plugins: list, install, enable, disable, marketplaces",
        handler,
        usage="[list|install|uninstall|enable|disable|marketplace] ...",
    )


def register_commands(commands: SlashCommandRegistry, sources: PromptSources) -> None:
    """The commands every shell has, then skills and prompt templates (never over a built-in)."""
    commands.register_all(
        builtin_commands(),
        compaction_commands(),
        branching_commands(),
        init_commands(),
        permission_commands(),
        reload_commands(),
    )
    sources.register(commands)
