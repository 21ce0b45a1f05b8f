"""What the footer shows, computed from the shell."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pi_cli.tui.messages import clean
from pi_cli.tui.widgets.footer import Status

if TYPE_CHECKING:
    from pi_cli.shell import FrontShell


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


def shell_status(shell: FrontShell | None, cwd: str, session_label: str | None) -> Status:
    """The footer's fields (``starting…`` until the shell exists)."""
    if shell is None:
        return Status(cwd=cwd, session="…", model="starting…", thinking="")
    usage = shell.usage
    goal = shell.goals.event().goal
    used, window = shell.context_usage()
    monitors = sum(i.state == "running" and bool(i.monitor) for i in shell.sandbox.shells.infos())
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
        background=shell.sandbox.shells.running - monitors,
        monitors=monitors,
        agents=shell.agent_tools.running_agents,
        goal=clean(goal.short()) if goal is not None else "",
        goal_state=goal.status if goal is not None else "",
        loops=clean(shell.schedules.event().short()),
    )
