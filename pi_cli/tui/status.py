"""What the footer shows, computed from the shell."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi_cli.tui.messages import clean
from pi_cli.tui.widgets.footer import Item, Status

if TYPE_CHECKING:
    from pi_cli.shell import CodingAgent, GoalChanged

GOAL_STYLES = {
    "pursuing": "$activity-text",
    "paused": "$warning",
    "met": "$tool-success-text",
    "unmet": "$ctx-danger",
    "budget-limited": "$ctx-danger",
}
"""The goal's footer field by status (theme variables only)."""


def home_relative(path: Path) -> str:
    """``path`` with the home directory written as ``~`` (``~/src/pi``)."""
    home = Path.home()
    if path != home and path.is_relative_to(home):
        return "~/" + str(path.relative_to(home))
    return str(path)


def short_path(path: Path, cwd: Path) -> str:
    """``path`` relative to ``cwd`` when inside it, else home-relative."""
    try:
        return str(path.relative_to(cwd))
    except ValueError:
        return home_relative(path)


def shell_status(shell: CodingAgent | None, cwd: str, session_label: str | None) -> Status:
    """The footer's fields (``starting…`` until the shell exists)."""
    if shell is None:
        return Status(cwd=cwd, session="…", model="starting…", thinking="")
    usage = shell.usage
    used, window = shell.context_usage()
    return Status(
        cwd=cwd,
        session=session_label or shell.session.session_id[:8],
        model=shell.model_id,
        thinking=shell.thinking,
        input=usage.input,
        output=usage.output,
        cache_read=usage.cache_read,
        cache_write=usage.cache_write,
        cost=usage.cost,
        context_tokens=used,
        context_window=window,
        mode=shell.permissions.mode,
        background=shell.sandbox.shells.running,
    )


def goal_item(event: GoalChanged) -> Item | None:
    """The footer field of the session's goal: ``goal pursuing 2/20: the tests pass``."""
    goal = event.goal
    if goal is None:
        return None
    return Item(clean(goal.short()), GOAL_STYLES.get(goal.status, "$footer-text"), priority=82)
