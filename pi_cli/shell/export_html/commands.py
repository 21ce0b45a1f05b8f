"""``/export``: the session as one HTML file (default: next to the project, see
:func:`~pi_cli.shell.export_html.default_export_path`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi_cli.shell.commands import CommandResult, SlashCommand, split_args
from pi_cli.shell.export_html import ExportError, default_export_path, export_session

if TYPE_CHECKING:
    from pi_cli.shell.commands import ShellAPI


async def _export(shell: ShellAPI, args: str) -> CommandResult:
    session = shell.session
    if not session.entries:
        return CommandResult(output="Nothing to export yet.", error=True)
    words = split_args(args)
    target = Path(words[0]).expanduser() if words else default_export_path(session, shell.cwd)
    if not target.is_absolute():
        target = shell.cwd / target
    try:
        path = export_session(session, target, theme=shell.settings.theme)
    except ExportError as exc:
        return CommandResult(output=str(exc), error=True)
    return CommandResult(output=f"Exported the session to {path}")


def export_commands() -> list[SlashCommand]:
    """``/export``."""
    return [
        SlashCommand("export", "Export the session as one HTML file", _export, usage="[file.html]")
    ]
