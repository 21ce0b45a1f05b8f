"""Building the language-server manager into a shell: how servers are launched (sandboxed
where bash is), when the navigation tool joins, which files a command changed."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.shell.lsp.config import ServerSpec, ServerTable
from pi_cli.shell.lsp.manager import LspManager
from pi_cli.shell.lsp.process import ServerProcess, launch
from pi_cli.shell.lsp.server import Launch, StartError

if TYPE_CHECKING:
    from pi_cli.shell.lsp.host import LspHost

log = logging.getLogger("pi_cli")
UNCONTAINED = (
    "not started: bash commands have no sandbox here ({why}) and this folder is not trusted. "
    "A language server runs the project's code (build scripts, compiler plugins); trust the "
    "folder (pi trust) or install bubblewrap"
)


def build_manager(shell: LspHost, table: ServerTable) -> LspManager:
    """The manager of ``shell``'s language servers (nothing starts yet)."""
    for problem in table.problems:
        shell.notify(problem, "warning")
    return LspManager(
        shell.settings.lsp, table, shell.cwd, _launcher(shell, table), shell.emit, shell.notify
    )


def _launcher(shell: LspHost, table: ServerTable) -> Launch:
    ids = itertools.count(1)

    async def start(spec: ServerSpec) -> ServerProcess:
        from tools.sandbox import HelperError, SandboxUnavailable

        command = table.resolve_command(spec)
        if command is None:
            raise StartError(f"command not found: {spec.command}")
        sandbox = shell.sandbox
        try:
            host, inside = await sandbox.host(True)
        except (SandboxUnavailable, HelperError) as exc:
            raise StartError(f"not started: {exc}") from None
        yolo = shell.permissions.mode == "bypassPermissions"
        if not inside and not shell.safety.trusted and not yolo:
            raise StartError(UNCONTAINED.format(why=sandbox.status.reason or "unavailable"))
        env = sandbox.environment({**shell.safety.tools_env(), **spec.env}, inside)
        job_id = f"lsp-{spec.name}-{next(ids)}"
        try:
            process = await launch(host, job_id, [command, *spec.args], str(shell.cwd), env)
        except HelperError as exc:
            raise StartError(f"not started: {exc}") from None
        process.sandboxed = inside
        try:
            await asyncio.wait_for(process.job.started.wait(), 10)
        except TimeoutError:
            process.kill()
            raise StartError("the process helper did not start it within 10s") from None
        if process.job.error:
            raise StartError(f"cannot run {command}: {process.job.error}")
        return process

    return start


def at_turn_start(shell: LspHost, manager: LspManager) -> None:
    """The turn boundary: the navigation tool joins while a server is ready, leaves after; so
    does the rename tool where a ready server renames and ``lsp.rename`` is on."""
    ready = [s.spec.name for s in manager.ready()]
    renaming = [s.spec.name for s in manager.ready() if s.capabilities.get("renameProvider")]
    wanted = {"lsp": ready if manager.settings.navigation else [], "lsp_rename": renaming}
    if not manager.settings.rename:
        wanted["lsp_rename"] = []
    current = {t.name: list(getattr(t, "servers", [])) for t in shell.tools if t.name in wanted}
    if current == {name: servers for name, servers in wanted.items() if servers}:
        return
    tools: list[Any] = []
    if wanted["lsp"]:
        from pi_cli.shell.lsp.tools import LspTool

        tools.append(LspTool(manager, shell.cwd))
    if wanted["lsp_rename"]:
        from pi_cli.shell.lsp.rename import LspRenameTool

        tools.append(LspRenameTool(manager, shell.cwd))
    for target in (shell.tools, shell.agent.tools):
        target[:] = [t for t in target if t.name not in wanted] + tools


async def files_changed(shell: LspHost, may_serve: Callable[[Path], bool]) -> list[Path]:
    """Files a bash command changed that a running server serves but has not open (the
    checkpoints' snapshot after the command against the one before it). Bounded like the
    diagnostics (``lsp.diagnosticsWaitMs``): a huge workspace's snapshot does not hold the turn."""
    checkpoints = shell.checkpoints
    if checkpoints.off is not None:
        return []
    wait = shell.settings.lsp.diagnostics_wait_ms / 1000
    try:
        changed = await asyncio.wait_for(checkpoints.changes_since_last(), wait)
    except TimeoutError:
        log.debug("the checkpoint snapshot after a command took over %ss", wait)
        return []
    except Exception:  # no snapshot, no extra files: the open ones still count
        log.debug("no checkpoint diff after a command", exc_info=True)
        return []
    served = [shell.cwd / name for name in changed if may_serve(Path(name))]
    return served[:MAX_EXTRA]


MAX_EXTRA = 20
"""At most this many files a command changed are opened for their diagnostics."""
