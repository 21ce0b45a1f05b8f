"""``/export``: the session as one HTML file (default: ``$PI_HOME/exports/<project>-<id>.html``,
outside the project, where an export would otherwise land in its git status)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi_cli.shell.commands import CommandResult, SlashCommand, split_args
from pi_cli.shell.paths import pi_home

if TYPE_CHECKING:
    from pi_cli.shell.commands import ShellAPI


async def _export(shell: ShellAPI, args: str) -> CommandResult:
    session = shell.session
    if not session.entries:
        return CommandResult(output="Nothing to export yet.", error=True)
    words = split_args(args)
    target = Path(words[0]).expanduser() if words else export_path(shell)
    if not target.is_absolute():
        target = shell.cwd / target
    from pi_cli.shell.export_html import ExportError, export_session

    try:
        path = export_session(session, target, theme=shell.settings.theme)
    except ExportError as exc:
        return CommandResult(output=str(exc), error=True)
    return CommandResult(output=f"Exported the session to {path}")


def export_path(shell: ShellAPI) -> Path:
    """The default of ``/export``: short, named after the project and the session, outside the
    project (``~/.pi/exports/webapp-3f2a9c1d.html``; the same session overwrites its export)."""
    project = "".join(c if c.isalnum() or c in "._-" else "-" for c in shell.cwd.name) or "pi"
    return (
        pi_home()
        / "exports"
        / f"{project.strip('.')[:40] or 'pi'}-{shell.session.session_id[:8]}.html"
    )


def export_commands() -> list[SlashCommand]:
    """``/export``."""
    return [
        SlashCommand("export", "Export the session as one HTML file", _export, usage="[file.html]")
    ]
