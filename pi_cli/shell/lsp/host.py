"""What the language servers use of the shell (a protocol: the shell is never imported here)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pi_cli.shell.context import ShellContext

if TYPE_CHECKING:
    from pi_cli.shell.checkpoints.manager import Checkpoints
    from pi_cli.shell.commands import SlashCommandRegistry
    from pi_cli.shell.options import ShellOptions
    from pi_cli.shell.permissions.control import PermissionControl
    from pi_cli.shell.safety import Safety
    from tools.sandbox import Sandbox


class LspHost(ShellContext, Protocol):
    """What the language servers use of the shell."""

    @property
    def safety(self) -> Safety: ...
    @property
    def sandbox(self) -> Sandbox: ...
    @property
    def options(self) -> ShellOptions: ...
    @property
    def commands(self) -> SlashCommandRegistry: ...
    @property
    def permissions(self) -> PermissionControl: ...
    @property
    def checkpoints(self) -> Checkpoints: ...
