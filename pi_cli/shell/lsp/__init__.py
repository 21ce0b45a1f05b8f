"""Code intelligence on real language servers: diagnostics after edits, navigation on demand.

Built by the shell's door (:mod:`pi_cli.shell.code_intelligence`) when a tool call first
concerns a file some server may serve; the client (:mod:`.manager`, :mod:`.server`,
:mod:`.jsonrpc`) loads with the first server. Hooks: after the permission gate and the
checkpoints decided a call, a ``read`` starts the file's server in the background; an
``edit``/``write``/``lsp_rename`` waits (bounded) for the changed files' diagnostics and appends
the new problems to the result; a ``bash`` command does the same for the open files it changed
(and the files the checkpoints saw change) while a server runs. ``lsp_rename`` is planned here
before the gate decides (:mod:`.rename`). Plugins hand their ``lspServers`` to
:func:`register_plugin_servers`.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from agent_core import AbortSignal
    from agent_core.tool import (
        AfterToolCall,
        AfterToolCallContext,
        AfterToolCallResult,
        BeforeToolCall,
        BeforeToolCallResult,
        ToolCallContext,
    )
    from pi_cli.shell.events.lsp import DiagnosticsReported
    from pi_cli.shell.lsp.config import ServerTable
    from pi_cli.shell.lsp.host import LspHost
    from pi_cli.shell.lsp.manager import LspManager
    from pi_cli.shell.lsp.rename import LspRenameTool

    class PluginServers(Protocol):
        """Where a plugin's servers go (the shell's :class:`~pi_cli.shell.code_intelligence.LspDoor`)."""

        def register_plugin(
            self, plugin: str, root: Path, servers: Mapping[str, Any]
        ) -> list[str]: ...

    class HasLsp(Protocol):
        """A shell with its language servers' door."""

        @property
        def lsp(self) -> PluginServers: ...


log = logging.getLogger("pi_cli")

EDITING = frozenset({"edit", "write", "lsp_rename"})
RENAME = "lsp_rename"


class LspPart:
    """The shell's language servers, built on first use (see the module docstring)."""

    def __init__(
        self, shell: LspHost, start_on_read: bool, may_serve: Callable[[Path], bool]
    ) -> None:
        self.shell = shell
        self.cwd: Path = shell.cwd
        self.settings = shell.settings.lsp
        self.start_on_read = start_on_read
        """A read starts its file's server (one-shot and JSON mode: only edits do)."""
        self.may_serve = may_serve
        """Whether some server may serve a path (cheap: the door's test)."""
        self._manager: LspManager | None = None
        self._table: ServerTable | None = None
        self.plugins: list[tuple[str, Path, Mapping[str, Any]]] = []

    # ------------------------------------------------------------------ building

    @property
    def table(self) -> ServerTable:
        """The servers this workspace may use (built on first use)."""
        if self._table is None:
            from pi_cli.shell.lsp.config import ServerTable

            safety = self.shell.safety
            self._table = ServerTable(
                self.settings.servers, self.cwd, safety.trusted, safety.tools_env().get("PATH")
            )
            for plugin, root, servers in self.plugins:
                self._table.add_plugin(plugin, root, servers)
        return self._table

    @property
    def manager(self) -> LspManager:
        """The language servers (built, not started, on first use)."""
        if self._manager is None:
            from pi_cli.shell.lsp.setup import build_manager

            self._manager = build_manager(self.shell, self.table)
        return self._manager

    @property
    def started(self) -> LspManager | None:
        """The manager if any server was ever asked for (None: nothing of LSP ran)."""
        return self._manager

    def register_plugin(self, plugin: str, root: Path, servers: Mapping[str, Any]) -> list[str]:
        """A plugin's ``lspServers`` (see :func:`register_plugin_servers`)."""
        self.plugins.append((plugin, root, servers))
        if self._table is None:
            from pi_cli.shell.lsp.config import ServerTable

            probe = ServerTable({}, self.cwd, False, None)
            return probe.add_plugin(plugin, root, servers)  # problems said now, used later
        return self._table.add_plugin(plugin, root, servers)

    def retire_plugin(self, plugin: str) -> None:
        """A plugin taken out: its servers serve nothing more (a running one is stopped)."""
        self.plugins = [entry for entry in self.plugins if entry[0] != plugin]
        if self._table is not None:
            for name in self._table.remove_plugin(plugin):
                if self._manager is not None:
                    self._manager.retire(name)

    def status(self) -> str:
        """``/lsp``: what runs, for which files, what is missing."""
        from pi_cli.shell.lsp.commands import status_text

        return status_text(self.settings, self.table, self.started)

    def at_turn_start(self) -> None:
        """The turn boundary: the lsp tools join while a server is ready (:mod:`.setup`)."""
        if self._manager is not None:
            from pi_cli.shell.lsp.setup import at_turn_start

            at_turn_start(self.shell, self._manager)

    # ------------------------------------------------------------------ the agent's hooks

    def paths(self, name: str, args: Mapping[str, Any], access: str) -> list[Path]:
        """The files a call reads or writes (as the tools resolve them) that a server may serve."""
        tool = next((t for t in self.shell.tools if t.name == name), None)
        if tool is None:
            return []
        try:
            effects = tool.file_effects(args)
        except Exception:  # noqa: BLE001 - a broken tool has no files to check
            return []
        from tools import resolve_path

        found = []
        for effect in effects:
            if effect.access == access:
                path = Path(os.path.normpath(resolve_path(self.cwd, effect.path)))
                if self.may_serve(path):
                    found.append(path)
        return found

    def rename_tool(self) -> LspRenameTool | None:
        """The ``lsp_rename`` tool while it is offered."""
        from pi_cli.shell.lsp.rename import LspRenameTool

        tool = next((t for t in self.shell.tools if t.name == RENAME), None)
        return tool if isinstance(tool, LspRenameTool) else None

    async def before_call(self, name: str, args: Mapping[str, Any]) -> None:
        """An approved call is about to run."""
        if name in EDITING:
            paths = self.paths(name, args, "write")
            if paths:
                await self.manager.before_edit(paths)
        elif name == "bash" and self._manager is not None and self._manager.running:
            self._manager.before_bash()

    async def after_call(self, ctx: AfterToolCallContext) -> AfterToolCallResult | None:
        """A call ran: start servers on reads, report diagnostics after changes."""
        call = ctx.tool_call
        if ctx.is_error:
            return None
        if call.name == "read":
            if self.start_on_read:
                for path in self.paths(call.name, call.arguments, "read"):
                    self.manager.touch(path)
            return None
        if call.name in EDITING:
            paths = self._written(ctx)
            if not paths:
                return None
            found = await self.manager.after_edit(call.id, call.name, paths)
            if found is None:
                return None
        elif call.name == "bash" and self._manager is not None and self._manager.running:
            found = await self._manager.after_bash(call.id, await self._bash_changes())
        else:
            return None
        return None if found is None else self._reported(ctx, *found)

    def _written(self, ctx: AfterToolCallContext) -> list[Path]:
        call = ctx.tool_call
        if call.name != RENAME:
            return self.paths(call.name, call.arguments, "write")
        details = ctx.result.details  # the rename's plan is spent: its result names the files
        files = details.get("files") if isinstance(details, dict) else None
        found = [self.cwd / str(name) for name in files] if isinstance(files, list) else []
        return [Path(os.path.normpath(path)) for path in found if self.may_serve(path)]

    async def _bash_changes(self) -> list[Path]:
        from pi_cli.shell.lsp.setup import files_changed

        return await files_changed(self.shell, self.may_serve)

    async def before_tool_call(
        self, ctx: ToolCallContext, signal: AbortSignal, previous: BeforeToolCall | None
    ) -> BeforeToolCallResult | None:
        """The agent's hook (through the door): a rename is planned before ``previous`` (the
        gate, the checkpoints) decides; a decided call's files are made known to the servers."""
        call = ctx.tool_call
        rename = self.rename_tool() if call.name == RENAME else None
        if rename is not None:  # planned first: the gate decides on every file it changes
            why = await rename.plan(call.arguments)
            if why is not None:
                from agent_core.tool import BeforeToolCallResult

                return BeforeToolCallResult(block=True, reason=f"lsp_rename: {why}")
        result = await previous(ctx, signal) if previous is not None else None
        args = result.arguments if result and result.arguments is not None else None
        if rename is not None and ((result is not None and result.block) or args is not None):
            rename.drop(call.arguments)  # not run, or run with other arguments (not planned)
        if result is not None and result.block:
            return result
        try:
            await self.before_call(call.name, args or call.arguments)
        except Exception:  # a language server problem never blocks a tool
            log.exception("language servers before a tool call")
        return result

    async def after_tool_call(
        self, ctx: AfterToolCallContext, signal: AbortSignal, previous: AfterToolCall | None
    ) -> AfterToolCallResult | None:
        """The agent's hook (through the door): diagnostics appended, then ``previous`` (the
        gate's hooks and redaction) sees the result with them."""
        ours = None
        try:
            ours = await self.after_call(ctx)
        except Exception:  # the tool's result stands without diagnostics
            log.exception("language servers after a tool call")
        if ours is None:
            return await previous(ctx, signal) if previous is not None else None
        result, is_error = ours.apply(ctx.result, ctx.is_error)
        if previous is not None:
            theirs = await previous(
                dataclasses.replace(ctx, result=result, is_error=is_error), signal
            )
            if theirs is not None:
                result, is_error = theirs.apply(result, is_error)
        return type(ours)(content=result.content, details=result.details, is_error=is_error)

    def _reported(
        self, ctx: AfterToolCallContext, report: DiagnosticsReported, starting: list[str]
    ) -> AfterToolCallResult | None:
        from agent_core import TextContent, to_wire
        from agent_core.tool import AfterToolCallResult
        from pi_cli.shell.lsp.diagnostics import worded

        if not report.files and not report.pending and not starting:
            return None
        self.shell.emit(report)
        text = worded(report, starting)
        details = ctx.result.details
        if isinstance(details, dict):
            wire = to_wire(report)
            wire.pop("type", None)
            details = {**details, "diagnostics": wire}
        content = list(ctx.result.content)
        if text:
            content.append(TextContent(text="\n\n" + text))
        return AfterToolCallResult(content=content, details=details)


def register_plugin_servers(
    shell: HasLsp, plugin: str, root: Path, servers: Mapping[str, Any]
) -> list[str]:
    """Hand a Claude Code plugin's ``lspServers`` to the shell (plugin loading calls this).

    ``servers`` is the plugin's ``lspServers`` object (or its ``.lsp.json``), with
    ``${CLAUDE_PLUGIN_ROOT}`` meaning ``root``. A server of the same name in the settings wins.
    Returns the problems found (bad entries are skipped), for the plugin loader to report.
    """
    return shell.lsp.register_plugin(plugin, root, servers)
