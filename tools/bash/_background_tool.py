"""What ``bash_output`` and ``bash_kill`` share: the session's sandbox and finding a shell by id."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agent_core import AbortSignal, ToolBase, ToolError
from tools._present import str_arg
from tools.sandbox import BackgroundShell, Sandbox


def shell_state(info: Any) -> str:
    """``running (pid 12)``, ``exited with code 0``, ``killed``..."""
    if info.state == "running":
        return f"running (pid {info.pid})"
    if info.state == "killed":
        return "killed"
    if info.state == "lost":
        return "lost (pi's process helper went away)"
    return f"exited with code {info.exit_code}"


class BackgroundShellTool(ToolBase):
    """A tool on one background shell of the session's :class:`Sandbox`, named by ``id``."""

    def __init__(self, cwd: str | Path, sandbox: Sandbox | None = None) -> None:
        self.cwd = Path(cwd)
        self.sandbox = sandbox if sandbox is not None else Sandbox(self.cwd, mode="off")

    def title(self, args: Mapping[str, Any]) -> str:
        """The shell's id."""
        return str_arg(args, "id") or ""

    def find_shell(self, shell_id: str, cancel: AbortSignal) -> BackgroundShell:
        """The background shell ``shell_id``; raises ToolError when aborted or unknown."""
        if cancel.aborted:
            raise ToolError("Aborted")
        shell = self.sandbox.shells.get(shell_id)
        if shell is None:
            known = ", ".join(s.id for s in self.sandbox.shells.all()) or "none"
            raise ToolError(f"No background shell {shell_id!r} (known: {known})")
        return shell
