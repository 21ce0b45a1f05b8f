"""Extensions into a shell: loaded, then woven in (found by :mod:`pi_cli.shell.extension_sources`,
which ``pi_cli.shell.features.attach_extensions`` calls first: with none installed nothing of this
package is imported)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.shell.extension_sources import Source

if TYPE_CHECKING:
    from agent_core import Agent, StreamFn, Tool
    from pi_cli.shell.commands import SlashCommandRegistry
    from pi_cli.shell.config.settings import Settings
    from pi_cli.shell.extensions.context import ExtensionHost
    from pi_cli.shell.extensions.shell import ShellExtensions
    from pi_cli.shell.hooks import HookManager
    from pi_cli.shell.models.setup import ModelResolver

    class ExtensionShell(ExtensionHost, Protocol):
        """The shell being built, as extensions are woven into it."""

        @property
        def settings(self) -> Settings: ...
        @property
        def tools(self) -> list[Tool]: ...
        @property
        def agent(self) -> Agent: ...
        @property
        def commands(self) -> SlashCommandRegistry: ...
        @property
        def hooks(self) -> HookManager: ...
        @property
        def input_transforms(self) -> list[Any]: ...
        @property
        def run_preparers(self) -> list[Any]: ...
        def notify(self, text: str, level: Any = "info") -> None: ...
        def subscribe(self, listener: Any) -> Any: ...
        def rebuild_system_prompt(self) -> None: ...


def weave(
    shell: ExtensionShell, models: ModelResolver, sources: list[Source], fresh: bool = False
) -> ShellExtensions:
    """Load ``sources`` (from the cache where it is valid, unless ``fresh``: ``/reload``) and
    weave the extensions into ``shell``: tools, commands, UI, hooks, transforms, listeners."""
    from pi_cli.shell.extensions.shell import ShellExtensions
    from pi_cli.shell.extensions.tool import ExtensionTool

    def set_tools(tools: list[Tool]) -> None:
        for current in (shell.tools, shell.agent.tools):
            current[:] = [t for t in current if not isinstance(t, ExtensionTool)] + tools
        shell.rebuild_system_prompt()

    def route(spec: str) -> tuple[StreamFn, str]:
        if spec not in extensions.routed:
            choice = models.resolve(spec)
            extensions.routed[spec] = (choice.stream_fn, choice.model_id)
        return extensions.routed[spec]

    extensions = ShellExtensions(
        shell, shell.commands, set_tools, shell.notify, shell.settings.extension_timeout_s, route
    )
    extensions.reserved_tools = frozenset(t.name for t in shell.tools)
    extensions.reserved_commands = frozenset(shell.commands.commands)
    shell.hooks.in_process = extensions.dispatcher
    shell.agent.transform_context = extensions.dispatcher.transform_context
    shell.agent.stream_middleware = extensions.provider.middleware
    shell.input_transforms.append(extensions.dispatcher.transform_input)
    prepare = extensions.dispatcher.before_agent_start
    shell.run_preparers.append(prepare)
    unsubscribe = shell.subscribe(extensions.dispatcher.on_event)

    def undo() -> None:
        unsubscribe()
        shell.hooks.in_process = None
        shell.agent.transform_context = None
        shell.agent.stream_middleware = None
        if extensions.dispatcher.transform_input in shell.input_transforms:
            shell.input_transforms.remove(extensions.dispatcher.transform_input)
        if prepare in shell.run_preparers:
            shell.run_preparers.remove(prepare)

    extensions.undo.append(undo)
    extensions.load(sources, fresh)
    return extensions
