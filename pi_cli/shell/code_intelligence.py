"""The door to the language servers (:mod:`pi_cli.shell.lsp`): nothing of them loads until a
tool call concerns one.

The shell builds this at start-up; it wraps the agent's tool hooks (after the permission gate
and the checkpoints, so it sees decided calls), registers ``/lsp`` and watches turn starts, all
without importing the client. The part (:class:`pi_cli.shell.lsp.LspPart`) is built when a call
touches a file some server may serve (a known extension, or any file once ``lsp.servers``
configures one): an ``edit``/``write``, or a ``read`` where reads start servers (interactive
sessions, ``lsp.startOnRead``). A one-shot that lists files and reads (the seed scenario) loads
nothing of it; once built, the part handles every call (a ``bash`` command's changes too).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core import TurnStart
from pi_cli.shell.commands import CommandResult, SlashCommand

if TYPE_CHECKING:
    from agent_core import AbortSignal, ToolCall
    from agent_core.tool import (
        AfterToolCall,
        AfterToolCallContext,
        AfterToolCallResult,
        BeforeToolCall,
        BeforeToolCallResult,
        ToolCallContext,
    )
    from pi_cli.shell.lsp import LspPart
    from pi_cli.shell.lsp.host import LspHost
    from pi_cli.shell.lsp.manager import LspManager
    from pi_cli.shell.plugins.attach import Plugins

KNOWN_EXTENSIONS = frozenset(
    ".py .pyi .ts .mts .cts .tsx .js .mjs .cjs .jsx .go .rs .c .h .cc .cpp .cxx .hpp .hh .hxx "
    ".m .mm .lua .sh .bash .zig .rb".split()
)
"""Extensions some known server serves (kept equal to the catalog's by a test)."""
CHANGING = frozenset({"edit", "write"})


class LspDoor:
    """The shell's language servers as the shell and its front ends see them (see the module
    docstring): ``started`` is None until a server was asked for."""

    def __init__(self, shell: LspHost, plugins: Callable[[], Plugins | None]) -> None:
        self.shell = shell
        self.settings = shell.settings.lsp
        self.part: LspPart | None = None
        self.plugins = plugins
        """The shell's Claude Code plugins now (``/reload`` may load the first ones): their
        ``lspServers`` join when the part is built."""
        self._registered: set[tuple[str, str]] = set()
        interactive = shell.options.approvals != "none"
        self.start_on_read = (
            interactive if self.settings.start_on_read is None else self.settings.start_on_read
        )
        """A read starts its file's server (one-shot and JSON mode: only edits do)."""

    @property
    def started(self) -> LspManager | None:
        """The servers' manager once a server was asked for (None: none ever was)."""
        return self.part.started if self.part is not None else None

    def open(self) -> LspPart:
        """The part, built (and its modules imported) on first use."""
        if self.part is None:
            from pi_cli.shell.lsp import LspPart

            self.part = LspPart(self.shell, self.start_on_read, self.may_serve)
        self.sync_plugins()
        return self.part

    def sync_plugins(self) -> None:
        """Hand the part the loaded plugins' ``lspServers`` it does not have yet, and take out
        those of plugins no longer loaded (a running server is stopped), at the part's build and
        at each turn start (``/reload`` between turns); bad entries are notices."""
        plugins = self.plugins()
        if self.part is None or (plugins is None and not self._registered):
            return
        now = plugins.lsp_servers if plugins is not None else []
        present = {(plugin, str(root)) for plugin, root, _ in now}
        for gone in self._registered - present:  # disabled or removed by /reload
            self._registered.discard(gone)
            self.part.retire_plugin(gone[0])
        for plugin, root, servers in now:
            if (plugin, str(root)) in self._registered:
                continue
            self._registered.add((plugin, str(root)))
            built = self.part.started is not None  # else the manager says them when built
            for problem in self.part.register_plugin(plugin, root, servers):
                if built:
                    self.shell.notify(problem, "warning")

    async def aclose(self) -> None:
        """Stop the language servers (nothing to do when none was ever asked for)."""
        if self.started is not None:
            await self.started.aclose()

    def register_plugin(self, plugin: str, root: Path, servers: Mapping[str, Any]) -> list[str]:
        """A plugin's ``lspServers`` (see :func:`pi_cli.shell.lsp.register_plugin_servers`)."""
        return self.open().register_plugin(plugin, root, servers)

    def may_serve(self, path: Path) -> bool:
        """Whether some server may serve ``path`` (cheap: no lookup, no import)."""
        if not self.settings.enabled:
            return False
        if os.path.splitext(path.name)[1].lower() in KNOWN_EXTENSIONS:
            return True
        loaded = self.plugins()
        plugins = loaded is not None and bool(loaded.lsp_servers)
        return bool(
            self.settings.servers or plugins or (self.part is not None and self.part.plugins)
        )

    def concerns(self, call: ToolCall, access: str) -> bool:
        """Whether ``call`` reads (``access``) or writes a file some server may serve."""
        tool = next((t for t in self.shell.tools if t.name == call.name), None)
        if tool is None or not self.settings.enabled:
            return False
        try:
            effects = tool.file_effects(call.arguments)
        except Exception:  # noqa: BLE001 - a broken tool has no files to check
            return False
        from tools import resolve_path

        cwd = self.shell.cwd
        return any(
            effect.access == access and self.may_serve(Path(resolve_path(cwd, effect.path)))
            for effect in effects
        )

    def wanted_before(self, call: ToolCall) -> LspPart | None:
        """The part, if it is built or ``call`` needs it before it runs."""
        if self.part is None and call.name in CHANGING and self.concerns(call, "write"):
            return self.open()
        return self.part

    def wanted_after(self, ctx: AfterToolCallContext) -> LspPart | None:
        """The part, if it is built or the finished call needs it."""
        call = ctx.tool_call
        if self.part is not None or ctx.is_error:
            return self.part
        if call.name in CHANGING and self.concerns(call, "write"):
            return self.open()
        if call.name == "read" and self.start_on_read and self.concerns(call, "read"):
            return self.open()
        return None


def attach_lsp(shell: LspHost, plugins: Callable[[], Plugins | None]) -> LspDoor:
    """Build the door into ``shell``: its hooks (after the gate and checkpoints), ``/lsp``, and
    the navigation tools joining at turn boundaries while a server is ready; ``plugins``' own
    servers (Claude Code's ``lspServers``) join the found and configured ones."""
    door = LspDoor(shell, plugins)
    agent = shell.agent
    agent.before_tool_call = _wrap_before(door, agent.before_tool_call)
    agent.after_tool_call = _wrap_after(door, agent.after_tool_call)

    async def command(_shell: Any, args: str) -> CommandResult:
        if args.strip():
            return CommandResult(output="usage: /lsp", error=True)
        return CommandResult(output=door.open().status())

    shell.commands.register_all(
        [
            SlashCommand(
                "lsp",
                "Show the language servers: what runs, for which files, what is missing",
                command,
                while_running=True,
            )
        ]
    )

    def on_event(event: object) -> None:
        if isinstance(event, TurnStart) and door.part is not None:
            door.sync_plugins()
            door.part.at_turn_start()

    agent.subscribe(on_event)
    return door


def _wrap_before(door: LspDoor, previous: BeforeToolCall | None) -> BeforeToolCall:
    async def before(ctx: ToolCallContext, signal: AbortSignal) -> BeforeToolCallResult | None:
        part = door.wanted_before(ctx.tool_call)
        if part is not None:
            return await part.before_tool_call(ctx, signal, previous)
        return await previous(ctx, signal) if previous is not None else None

    return before


def _wrap_after(door: LspDoor, previous: AfterToolCall | None) -> AfterToolCall:
    async def after(ctx: AfterToolCallContext, signal: AbortSignal) -> AfterToolCallResult | None:
        part = door.wanted_after(ctx)
        if part is not None:
            return await part.after_tool_call(ctx, signal, previous)
        return await previous(ctx, signal) if previous is not None else None

    return after
