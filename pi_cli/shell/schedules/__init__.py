"""Loops and scheduled prompts (``/loop``, ``schedule_create``/``schedule_list``/
``schedule_delete``): a prompt sent again on an interval, a cron expression (UTC) or once at a
time.

Each firing is a normal prompt through the shell's input policy: it starts a run when pi is
idle, joins the live run as a follow-up (at its end, never mid-turn), or waits while pi only
finishes an input; while its previous firing is still queued it is skipped, so no backlog
builds. One timer (the event loop's ``call_later``) waits for the soonest firing; nothing
polls. Schedules are ``schedule`` entries of the session tree: ``pi -c`` restores them, ``/tree``
sees them as they were, a fork keeps them. Firings that fell due while pi was closed are said
and a catch-up is offered (one firing, never the backlog) through the dialog broker. They fire
in the TUI, the plain REPL, RPC and ``pi serve`` (with no client attached too), not in one-shot
or JSON mode, which only store them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from agent_core import Tool
from pi_cli.shell.commands import CommandResult, ShellAPI, SlashCommand
from pi_cli.shell.schedules._clock import Clock
from pi_cli.shell.schedules._schedules import (
    ScheduleError,
    ScheduleHost,
    Schedules,
)

if TYPE_CHECKING:
    from agent_core import Agent

__all__ = ["Clock", "ScheduleError", "Schedules", "attach_schedules"]


class ScheduleShell(ScheduleHost, Protocol):
    """The CodingAgent's parts the schedules are wired to."""

    @property
    def tools(self) -> list[Tool]: ...
    @property
    def agent(self) -> Agent: ...


def attach_schedules(shell: ScheduleShell, clock: Clock | None = None) -> Schedules:
    """Build the shell's schedules: ``/loop``, the tools (where a front end can fire them),
    the session's schedules restored. The timer starts with :meth:`Schedules.begin`."""
    schedules = Schedules(shell, clock)
    shell.commands.register_all(_loop_commands(schedules))
    shell.subscribe(schedules.on_event)
    options = shell.options
    default_tools = options.tools is None and shell.settings.tools is None  # not --tools
    if options.approvals != "none" and default_tools and not options.no_tools:
        from pi_cli.shell.schedules._tools import schedule_tools

        tools = schedule_tools(schedules)
        for current in (shell.tools, shell.agent.tools):
            current.extend(tool for tool in tools if tool not in current)
    schedules.restore()
    return schedules


def _loop_commands(schedules: Schedules) -> list[SlashCommand]:
    """``/loop`` and ``/schedules``; their module loads when one is run."""

    async def loop(shell: ShellAPI, args: str) -> CommandResult:
        from pi_cli.shell.schedules._commands import loop_command

        return await loop_command(schedules, args)

    async def listing(shell: ShellAPI, args: str) -> CommandResult:
        from pi_cli.shell.schedules._commands import list_command

        return list_command(schedules)

    usage = (
        '[interval] <prompt> | cron "<m h dom mon dow>" <prompt> | at <time> <prompt> | list | '
        "stop <id>|all"
    )
    return [
        SlashCommand(
            "loop",
            "Run a prompt on an interval, a cron schedule or at a time (/loop list, /loop stop)",
            loop,
            usage=usage,
            while_running=True,
        ),
        SlashCommand(
            "schedules", "List the session's loops and schedules", listing, while_running=True
        ),
    ]
