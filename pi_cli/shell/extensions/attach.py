"""Extensions into a shell being built: found cheaply, loaded only when there are some.

With no extension anywhere this costs a few directory reads and one small cache file: nothing
of the extension machinery is imported (``python -X importtime`` shows it). ``PI_NO_EXTENSIONS=1``
skips them all.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.shell.extensions import discovery
from pi_cli.shell.paths import pi_ts_home

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
        def notify(self, text: str, level: Any = "info") -> None: ...
        def subscribe(self, listener: Any) -> Any: ...
        def rebuild_system_prompt(self) -> None: ...


def find_sources(
    cwd: Path, trusted: bool, settings: Settings
) -> tuple[list[discovery.Source], list[str]]:
    """Every extension to load, one per name, and what to tell the user about them."""
    notes: list[str] = []
    sources = discovery.folder_sources(discovery.user_folder(), "user")
    if trusted:
        sources += discovery.project_sources(cwd)
    extra, problems = discovery.setting_sources(list(settings.extensions), cwd)
    sources += extra
    notes += problems
    sources += discovery.entry_point_sources(_entry_point_cache())
    disabled = discovery.disabled_names(list(settings.disabled_extensions))
    sources = [s for s in sources if s.name not in disabled]
    chosen, replaced = discovery.by_name(sources)
    return chosen, notes + replaced


_EP_CACHE: dict[str, Any] = {}


def _entry_point_cache() -> dict[str, Any]:
    """The entry points, cached in this process and in ``$PI_HOME/cache/extensions.json``."""
    if not _EP_CACHE:
        from pi_cli.shell.extensions.manifest import read_cache, write_cache

        cache = read_cache()
        before = cache.get("entryPoints")
        _EP_CACHE.update(cache)
        found = discovery.entry_point_sources(_EP_CACHE)  # fills _EP_CACHE["entryPoints"]
        del found
        if _EP_CACHE.get("entryPoints") != before:
            cache["entryPoints"] = _EP_CACHE["entryPoints"]
            write_cache(cache)
    return _EP_CACHE


def attach_extensions(
    shell: ExtensionShell, models: ModelResolver, trusted: bool, fresh: bool = False
) -> ShellExtensions | None:
    """Find the shell's extensions and weave them in (``None``: there are none); ``fresh``
    (``/reload``) loads them all, none from the cache."""
    foreign = discovery.foreign_files(shell.cwd, pi_ts_home())
    if foreign:
        shell.notify(discovery.foreign_notice(foreign, shell.cwd), "warning")
    if os.environ.get("PI_NO_EXTENSIONS"):
        return None
    sources, notes = find_sources(shell.cwd, trusted, shell.settings)
    for note in notes:
        shell.notify(note, "warning")
    if not sources:
        return None
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
    unsubscribe = shell.subscribe(extensions.dispatcher.on_event)

    def undo() -> None:
        unsubscribe()
        shell.hooks.in_process = None
        shell.agent.transform_context = None
        shell.agent.stream_middleware = None
        if extensions.dispatcher.transform_input in shell.input_transforms:
            shell.input_transforms.remove(extensions.dispatcher.transform_input)

    extensions.undo.append(undo)
    extensions.load(sources, fresh)
    return extensions
