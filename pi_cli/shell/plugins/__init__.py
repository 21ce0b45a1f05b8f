"""Claude Code plugins and marketplaces, loaded as they are (see docs/plugins.md).

:mod:`.manifest` reads a plugin folder's ``plugin.json``, :mod:`.components` what it holds,
:mod:`.marketplace` and :mod:`.install` add marketplaces and install plugins pinned to a
commit, :mod:`.store` keeps the records and verifies an install on load, :mod:`.attach` builds
the enabled ones into a shell, :mod:`.commands` is ``/plugin``. Nothing here is imported unless
a plugin is enabled, ``--plugin-dir`` is given or ``/plugin`` runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agent_core import Tool
    from pi_cli.shell.agent_tools import AgentTools
    from pi_cli.shell.commands import SlashCommandRegistry
    from pi_cli.shell.context import Level
    from pi_cli.shell.hooks import HookManager
    from pi_cli.shell.options import ShellOptions
    from pi_cli.shell.prompt.sources import PromptSources
    from pi_cli.shell.safety import Safety


class PluginHost(Protocol):
    """What plugins use of the shell they are built into."""

    @property
    def cwd(self) -> Path: ...
    @property
    def options(self) -> ShellOptions: ...
    @property
    def safety(self) -> Safety: ...
    @property
    def commands(self) -> SlashCommandRegistry: ...
    @property
    def sources(self) -> PromptSources: ...
    @property
    def agent_tools(self) -> AgentTools: ...
    @property
    def hooks(self) -> HookManager: ...
    @property
    def input_transforms(self) -> list[Callable[[str], Awaitable[str | None]]]: ...
    @property
    def tools(self) -> list[Tool]: ...
    def replace_tool(self, tool: Tool) -> None: ...
    def rebuild_system_prompt(self) -> None: ...
    def notify(self, text: str, level: Level = "info") -> None: ...
