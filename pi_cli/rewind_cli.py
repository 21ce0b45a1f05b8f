"""``pi rewind``: the checkpoints of a session from a script or an editor.

    pi rewind [--session S] [--json]                 the prompts of the session, numbered
    pi rewind N|ENTRY [--both|--code|--conversation] [--yes|--keep] [--dry-run] [--json]
    pi rewind --undo [--yes|--keep] [--json]

The session is ``--session`` (path or id) or the latest of this directory; the workspace is the
one the session was started in. Exit codes: 0 done, 1 the rewind failed, 2 bad arguments or
no such session, 7 files changed by hand since the point need ``--yes`` or ``--keep``.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

USAGE = __doc__.split("\n\n")[1].rstrip() if __doc__ else ""
# pi_cli.args.ExitCode's values (this module is reached from pi_cli.args, so it does not import
# it back; tests/cli/test_session_commands.py keeps them equal).
OK, ERROR, BAD_USAGE, DENIED = 0, 1, 2, 7
_FLAGS = frozenset(
    {"--code", "--conversation", "--both", "--yes", "--keep", "--dry-run", "--undo", "--json"}
)
_HELP = frozenset({"--help", "-h"})
_POINT = re.compile(r"\d{1,6}|[0-9a-f]{8}")


def accepts(argv: list[str]) -> bool:
    """``[N|ENTRY-ID] [--code|--conversation|--both] [--yes|--keep] [--dry-run] [--undo]
    [--json] [--session S]`` or ``--help``; any other word makes ``pi rewind ...`` a prompt."""
    points = 0
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--session":
            index += 1
            if index >= len(argv):
                return False
        elif _POINT.fullmatch(word):
            points += 1
        elif word not in _FLAGS and word not in _HELP and not word.startswith("--session="):
            return False
        index += 1
    return points <= 1


def error(message: str) -> None:
    """A user-facing error on stderr (as pi_cli.args.error words it)."""
    from pi_cli.shell import say

    say(f"pi: {message}", err=True)


def _options(argv: list[str]) -> dict[str, Any]:
    found: dict[str, Any] = {"mode": "both", "overwrite": None, "session": None, "point": None}
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--session":
            index += 1
            found["session"] = argv[index]
        elif word.startswith("--session="):
            found["session"] = word.split("=", 1)[1]
        elif word in ("--both", "--code", "--conversation"):
            found["mode"] = word[2:]
        elif word in ("--yes", "--keep"):
            found["overwrite"] = word == "--yes"
        elif word.startswith("--"):
            found[word[2:].replace("-", "_")] = True
        else:
            found["point"] = word
        index += 1
    return found


def run(argv: list[str]) -> int:
    """Entry point of ``pi rewind`` (the arguments after ``rewind``)."""
    options = _options(argv)
    if options.get("help") or options.get("h"):
        from pi_cli.shell import say

        say("usage:\n" + USAGE)
        return OK
    from pi_cli.modes.offline import offline_shell, session_workspace
    from pi_cli.shell import SessionError, SettingsError

    try:
        path, workspace = session_workspace(options["session"], Path.cwd())
        shell = offline_shell(path, workspace, "pi rewind does not talk to a model")
    except (SessionError, SettingsError) as exc:
        error(str(exc))
        return BAD_USAGE
    return asyncio.run(_run(shell, options))


async def _run(shell: Any, options: dict[str, Any]) -> int:
    from pi_cli.modes.rpc.checkpoints import MODES, plan_wire, point_wire, result_wire
    from pi_cli.shell import (
        NeedsConfirmation,
        RewindError,
        describe_rewind,
        format_points,
        resolve_point,
    )

    as_json = bool(options.get("json"))
    try:
        points = await shell.checkpoints.points()
        if options.get("undo"):
            result = await shell.checkpoints.undo(options["overwrite"])
        elif options["point"] is None:
            out = {"points": [point_wire(p) for p in points]} if as_json else format_points(points)
            _print(out)
            return OK
        else:
            entry_id = resolve_point(points, options["point"])
            if options.get("dry_run"):
                plan = await shell.checkpoints.plan(entry_id)
                _print({"plan": plan_wire(plan)} if as_json else "\n".join(plan.lines()))
                return OK if not plan.problem else ERROR
            code, conversation = MODES[options["mode"]]
            result = await shell.checkpoints.rewind(
                entry_id, code=code, conversation=conversation, overwrite=options["overwrite"]
            )
    except NeedsConfirmation as exc:
        error(f"{exc} Run again with --yes to overwrite them or --keep to leave them.")
        return DENIED
    except RewindError as exc:
        error(str(exc))
        return ERROR
    finally:
        await shell.aclose()
    if as_json:
        _print(result_wire(result))
    else:
        _print(
            describe_rewind(result) + (f"\nThe prompt was: {result.text}" if result.text else "")
        )
    return OK


def _print(value: Any) -> None:
    """A listing (cleaned: file names and prompts come from the model) or one JSON line."""
    from pi_cli.shell import json_text, say

    say(value if isinstance(value, str) else json_text(value))
