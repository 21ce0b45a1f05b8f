"""``/loop`` (and ``/schedules``): create, list and stop the session's schedules.

``/loop [--for D] [--max N] [interval] <prompt>`` fires now and then every interval (10m when
none is given, as Claude Code's ``/loop``; ``<prompt> every 20m`` works too);
``/loop cron "<m h dom mon dow>" <prompt>`` fires on a cron expression (UTC);
``/loop at <time> <prompt>`` fires once; ``/loop`` and ``/loop list`` list them;
``/loop stop <id>|all`` stops them. All of it works while a run is live.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pi_cli.shell.commands import CommandResult
from pi_cli.shell.schedules._timing import (
    TimingError,
    format_time,
    is_interval,
    parse_at,
    parse_interval,
)

if TYPE_CHECKING:
    from pi_cli.shell.schedules._schedules import Schedules

DEFAULT_INTERVAL = "10m"
USAGE = (
    '/loop [--for 2h] [--max N] [interval] <prompt> | /loop cron "<m h dom mon dow>" <prompt> '
    "| /loop at <HH:MM|ISO time|+20m> <prompt> | /loop list | /loop stop <id>|all"
)
_OPTION = re.compile(r"(--for|--max)(?:=|\s+)(\S+)\s*")
_NUMBERISH = re.compile(r"[+-]?\d+(?:\.\d+)?[a-z]+", re.IGNORECASE)
_EVERY = re.compile(
    r"\s+every\s+(\d{1,9})\s*(s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)\s*$",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"""(?:"([^"]*)"|'([^']*)')\s*""")


class _Usage(ValueError):
    """The arguments do not parse (the message is for the user)."""


def _options(args: str) -> tuple[dict[str, Any], str]:
    """Leading ``--for D`` / ``--max N``; the rest of the arguments."""
    found: dict[str, Any] = {}
    rest = args.strip()
    while (match := _OPTION.match(rest)) is not None:
        name, value = match.group(1), match.group(2)
        if name == "--for":
            found["for_s"] = parse_interval(value)
        elif not value.isdigit():
            raise _Usage(f"--max takes a count of firings, not {value!r}")
        else:
            found["max_firings"] = int(value)
        rest = rest[match.end() :]
    return found, rest


def _cron(rest: str) -> tuple[str, str]:
    """``"*/5 * * * *" prompt`` or ``*/5 * * * * prompt`` or ``@daily prompt``."""
    quoted = _QUOTED.match(rest)
    if quoted:
        return quoted.group(1) if quoted.group(1) is not None else quoted.group(2), rest[
            quoted.end() :
        ]
    words = rest.split(None, 5 if not rest.startswith("@") else 1)
    count = 1 if rest.startswith("@") else 5
    if len(words) <= count:
        raise _Usage('/loop cron needs 5 fields and a prompt: /loop cron "*/5 * * * *" <prompt>')
    return " ".join(words[:count]), words[count]


def parse_loop(args: str, now: float) -> dict[str, Any]:
    """The arguments of a new schedule, as :meth:`Schedules.create` takes them."""
    spec, rest = _options(args)
    word, _, after = rest.partition(" ")
    if word.lower() == "cron":
        spec["cron"], spec["prompt"] = _cron(after.strip())
    elif word.lower() == "at":
        when, _, prompt = after.strip().partition(" ")
        if when.lower() == "in":  # at in 20m
            amount, _, prompt = prompt.strip().partition(" ")
            when = f"+{amount}"
        spec["at"], spec["prompt"] = parse_at(when, now), prompt
    elif is_interval(word):
        spec["every_s"], spec["prompt"], spec["fire_now"] = parse_interval(word), after, True
    elif _NUMBERISH.fullmatch(word):
        raise _Usage(f"{word!r} is not an interval: use a positive number and s, m, h or d")
    else:
        every = _EVERY.search(rest)
        if every is not None:
            interval = every.group(1) + every.group(2)[0].lower()
            spec["every_s"], spec["prompt"] = parse_interval(interval), rest[: every.start()]
        else:
            spec["every_s"], spec["prompt"] = parse_interval(DEFAULT_INTERVAL), rest
        spec["fire_now"] = True
    if not str(spec["prompt"]).strip():
        raise _Usage("A loop needs a prompt")
    return spec


async def loop_command(schedules: Schedules, args: str) -> CommandResult:
    """``/loop ...``: create, list or stop."""
    word, _, rest = args.strip().partition(" ")
    if word in ("", "list", "ls"):
        return list_command(schedules)
    if word in ("stop", "delete", "rm"):
        return _stop(schedules, rest)
    from pi_cli.shell.schedules._schedules import ScheduleError

    try:
        spec = parse_loop(args, schedules.clock.now())
        created = schedules.create(**spec)
    except (_Usage, TimingError, ScheduleError) as exc:
        return CommandResult(output=f"{exc}\nUsage: {USAGE}", error=True)
    due = created.next_due()
    when = f"next {format_time(due)}" if due is not None else "no later firing"
    now = " — fired now" if spec.get("fire_now") and schedules.live else ""
    idle = (
        ""
        if schedules.live
        else " (stored: it fires while this session is open in the TUI, the plain REPL, "
        "RPC or pi serve)"
    )
    return CommandResult(
        output=f"Loop {created.id} {created.describe()}{created.bounds()}{now}, {when}: "
        f"{created.title(60)}{idle}. /loop stop {created.id} stops it."
    )


def list_command(schedules: Schedules) -> CommandResult:
    """``/loop list``, ``/schedules``."""
    active = schedules.active()
    if not active:
        return CommandResult(output=f"No loops or schedules. Usage: {USAGE}")
    lines = [schedule.line() for schedule in active]
    return CommandResult(output="\n".join(["Loops and schedules (UTC):", *lines]))


def _stop(schedules: Schedules, ref: str) -> CommandResult:
    from pi_cli.shell.schedules._schedules import ScheduleError

    if ref.strip() == "all":
        count = schedules.delete_all()
        return CommandResult(output=f"Stopped {count} loop{'s' if count != 1 else ''}.")
    if not ref.strip():
        return CommandResult(output="/loop stop <id>|all", error=True)
    try:
        stopped = schedules.delete(ref)
    except ScheduleError as exc:
        return CommandResult(output=str(exc), error=True)
    return CommandResult(output=f"Stopped loop {stopped.id}: {stopped.title(60)}")
