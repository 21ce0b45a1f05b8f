"""Permission modes, Claude Code rules, the read-only classifier and approvals.

Submodules: :mod:`.modes`, :mod:`.rules`, :mod:`.bash_parse` and :mod:`.readonly` (the
classifier), :mod:`.engine` (policy), :mod:`.approvals` (asking), :mod:`.gate` (the order with
hooks), :mod:`.control` (the shell's controls), :mod:`.commands` (``/permissions``).
"""

from __future__ import annotations

from pi_cli.shell.permissions._commands import permission_commands
from pi_cli.shell.permissions.approvals import ApprovalAnswer, ApprovalBroker
from pi_cli.shell.permissions.control import PermissionControl
from pi_cli.shell.permissions.modes import MODES, Mode, ModeError, parse_mode
from pi_cli.shell.permissions.workspace import PROTECTED_PATHS

__all__ = [
    "MODES",
    "PROTECTED_PATHS",
    "ApprovalAnswer",
    "ApprovalBroker",
    "Mode",
    "ModeError",
    "PermissionControl",
    "parse_mode",
    "permission_commands",
]
