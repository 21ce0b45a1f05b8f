"""``/goal``: set, show, pause, resume, edit or drop the session's goal.

``/goal <condition>`` and ``/goal --check "<command>" <condition>`` set a goal and start its first
round; ``/goal`` shows it; ``pause``, ``drop`` (``clear``) and the bare ``/goal`` also work while
a run is live (a pause takes effect when the round ends); ``resume`` (``goal.maxRounds`` rounds
more) and a new goal wait for the shell to be idle.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pi_cli.shell.commands import CommandResult, SlashCommand

if TYPE_CHECKING:
    from pi_cli.shell.commands import ShellAPI
    from pi_cli.shell.goals._goals import Goals

USAGE = (
    "/goal <condition> | /goal --check <command> <condition> | "
    "/goal pause|resume|drop | /goal edit [--check <command>] <condition>"
)
_CHECK = re.compile(
    r"""--check(?:(?:=|\s+)(?:"(?P<dq>(?:[^"\\]|\\.)*)"|'(?P<sq>[^']*)'|(?P<bare>\S+)))?(?:\s+|$)""",
    re.DOTALL,
)


def split_check(args: str) -> tuple[str | None, str]:
    """``--check "make test" tests pass`` -> ``("make test", "tests pass")``."""
    found = _CHECK.match(args.strip())
    if found is None:
        return None, args.strip()
    dq, sq, bare = found.group("dq"), found.group("sq"), found.group("bare")
    check = re.sub(r"\\(.)", r"\1", dq) if dq is not None else sq if sq is not None else bare
    check = check if check is not None else ""  # ``--check`` and nothing: an empty command
    return check, args.strip()[found.end() :].strip()


def goal_commands(goals: Goals) -> list[SlashCommand]:
    """The ``/goal`` command bound to ``goals``."""

    async def goal(shell: ShellAPI, args: str) -> CommandResult:
        word, _, rest = args.strip().partition(" ")
        live = goals.shell.state != "command"  # typed while a run (or compaction) is live
        if not word:
            return _show(goals)
        if word in ("pause", "drop", "clear"):
            return _pause(goals) if word == "pause" else _drop(goals)
        if live:
            return CommandResult(
                output="A run is live: /goal pause, /goal drop and /goal work now; set, edit or "
                "resume a goal once it ends (or abort it).",
                error=True,
            )
        from pi_cli.shell.goals._goals import GoalError

        try:
            if word == "resume":
                resumed = goals.resume()
                return CommandResult(output=_line(goals), prompt=resumed.resumed())
            if word == "edit":
                check, condition = split_check(rest)
                goals.edit(condition, check)
                return CommandResult(output=f"Edited. {_line(goals)}")
            check, condition = split_check(args)
            new = goals.set(condition, check)
        except GoalError as exc:
            return CommandResult(output=f"{exc}\nUsage: {USAGE}", error=True)
        return CommandResult(output=_line(goals), prompt=new.directive())

    return [
        SlashCommand(
            "goal",
            "Keep working until a condition holds (checked by a command or judged)",
            goal,
            usage=USAGE,
            while_running=True,
        )
    ]


def _line(goals: Goals) -> str:
    return goals.goal.line(goals.max_rounds) if goals.goal is not None else "No goal."


def _show(goals: Goals) -> CommandResult:
    if goals.goal is None:
        return CommandResult(output=f"No goal. Usage: {USAGE}")
    return CommandResult(output=_line(goals))


def _pause(goals: Goals) -> CommandResult:
    goal = goals.goal
    if goal is None:
        return CommandResult(output="No goal to pause.", error=True)
    if goal.status != "pursuing":
        return CommandResult(output=f"The goal is {goal.status}, not being pursued.")
    goals.set_status("paused", "paused with /goal pause")
    return CommandResult(output=f"{_line(goals)} (/goal resume to go on)")


def _drop(goals: Goals) -> CommandResult:
    if not goals.drop():
        return CommandResult(output="No goal to drop.", error=True)
    return CommandResult(output="Goal dropped.")
