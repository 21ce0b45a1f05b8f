"""Installed plugins' copies checked against their records, without holding the start-up.

A plugin whose code may run before any input (hooks, MCP or LSP servers) is checked while it
loads. The others (commands, agents, skills: read from the install record, no plugin file read
at start) are checked on a background thread; the first input waits for that check (a input
transform, first in line), and a plugin whose copy changed is then taken out of the shell, named
with how to reinstall it, before anything of it is used or reaches the model.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.shell.packages.files import verify

if TYPE_CHECKING:
    from pi_cli.shell.plugins import PluginHost


class PendingPlugin(Protocol):
    """A loaded plugin whose copy is still to be checked (``attach.LoadedPlugin``)."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def record(self) -> dict[str, Any] | None: ...


class PluginOwner(Protocol):
    """The shell's plugins (``attach.Plugins``), as the checks report to them."""

    problems: list[str]

    def drop(self, shell: PluginHost, name: str) -> None: ...


def runs_at_start(index: dict[str, Any]) -> bool:
    """Whether a plugin brings code that may run before the first input."""
    return any(index.get(key) for key in ("hooks", "mcpServers", "lspServers"))


def check_copy(plugin_id: str, record: dict[str, Any]) -> str | None:
    """``None`` when the installed copy is as recorded, else the message refusing it."""
    changed = verify(Path(str(record.get("path"))), record.get("files") or {})
    if changed is None:
        return None
    return (
        f"Plugin {plugin_id} not loaded: its installed copy changed since it was installed at "
        f"{str(record.get('commit') or 'a local folder')[:12]} ({changed}). "
        f"Reinstall it: pi plugin install {plugin_id}"
    )


class DeferredChecks:
    """The pending plugins' checks, run on a thread; :meth:`gate` is the input transform."""

    def __init__(self, plugins: PluginOwner, pending: Sequence[PendingPlugin]) -> None:
        self.plugins = plugins
        self.pending = pending
        self.failed: dict[str, str] = {}
        self.done = threading.Event()
        self.settled = False
        self._shell: PluginHost | None = None

    def _run(self) -> None:
        try:
            for plugin in self.pending:
                problem = check_copy(plugin.id, plugin.record or {})
                if problem is not None:
                    self.failed[plugin.name] = problem
        finally:
            self.done.set()

    def attach(self, shell: PluginHost) -> DeferredChecks:
        """Start the checks and put the gate first among ``shell``'s input transforms."""
        self._shell = shell
        shell.input_transforms.insert(0, self.gate)
        threading.Thread(target=self._run, name="pi-plugin-checks", daemon=True).start()
        return self

    def detach(self, shell: PluginHost) -> None:
        """Take the gate out (``/reload`` makes a new one)."""
        if self.gate in shell.input_transforms:
            shell.input_transforms.remove(self.gate)

    def wait(self) -> None:
        """Block until the checks are done (tests, and the gate off the loop)."""
        self.done.wait()

    async def gate(self, text: str) -> str:
        """Before the first input is handled: refused plugins are taken out and named."""
        if self.settled:
            return text
        if not self.done.is_set():
            await asyncio.to_thread(self.done.wait)
        self.settled = True
        shell = self._shell
        if shell is not None and self.failed:
            for name, problem in self.failed.items():
                self.plugins.drop(shell, name)
                self.plugins.problems.append(problem)
                shell.notify(problem, "warning")
            shell.rebuild_system_prompt()
        return text
