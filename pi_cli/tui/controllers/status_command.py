"""The status line command in the TUI: its output is a line of the footer, above the two
built-in ones (:mod:`pi_cli.shell.status_line` runs it; nothing of it is imported unless the
``statusLine`` setting is there)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_cli.shell import FrontShell, StatusLine
    from pi_cli.tui.widgets.footer import StatusFooter


def attach_status_line(footer: StatusFooter, shell: FrontShell) -> StatusLine | None:
    """Start the command for ``shell`` (``None`` when no ``statusLine`` is set)."""
    config = shell.settings.status_line
    if config is None:
        return None
    from pi_cli.shell import StatusLine

    line = StatusLine(shell, config, footer.set_command_line)
    line.start()
    return line


async def close_status_line(line: Any) -> None:
    """Stop it (a running command is killed with its process group)."""
    if line is not None:
        await line.aclose()
