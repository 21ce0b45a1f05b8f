"""``pi diff``: what a session changed, for scripts (from its checkpoints).

    pi diff [--session S] [--turns] [--json]
    pi diff revert PATH [--session S]

The session is ``--session`` (path or id) or the latest of this directory. The text is the
patch with a heading per part (the total, then with ``--turns`` each prompt's); ``--json`` is
one document (``segments[].files[]``: path, oldPath, status, binary, additions, deletions,
patch). ``revert PATH`` puts one file back as it was when the session started. Exit codes:
0 done, 1 the snapshots cannot be read or the revert failed, 2 bad arguments or no session.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

USAGE = __doc__.split("\n\n")[1].rstrip() if __doc__ else ""
OK, ERROR, BAD_USAGE = 0, 1, 2
_FLAGS = frozenset({"--turns", "--json", "--help", "-h"})


def _options(argv: list[str]) -> dict[str, Any] | None:
    found: dict[str, Any] = {"session": None, "revert": None, "flags": set()}
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--session" and index + 1 < len(argv):
            index += 1
            found["session"] = argv[index]
        elif word.startswith("--session="):
            found["session"] = word.split("=", 1)[1]
        elif word in _FLAGS:
            found["flags"].add(word)
        elif word == "revert" and index == 0 and index + 1 < len(argv):
            index += 1
            found["revert"] = argv[index]
        else:
            return None
        index += 1
    return found


def accepts(argv: list[str]) -> bool:
    """Only its own words: ``pi diff these two files`` is a prompt."""
    return _options(argv) is not None


def run(argv: list[str]) -> int:
    """Entry point of ``pi diff``."""
    from pi_cli.shell import say

    options = _options(argv)
    if options is None:
        say("pi: diff: usage:\n" + USAGE, err=True)
        return BAD_USAGE
    if options["flags"] & {"--help", "-h"}:
        say("usage:\n" + USAGE)
        return OK
    from pi_cli.modes.offline import offline_shell, session_workspace
    from pi_cli.shell import SessionError, SettingsError

    try:
        path, workspace = session_workspace(options["session"], Path.cwd())
        shell = offline_shell(path, workspace, "pi diff does not talk to a model")
    except (SessionError, SettingsError) as exc:
        say(f"pi: diff: {exc}", err=True)
        return BAD_USAGE
    return asyncio.run(_run(shell, options))


async def _run(shell: Any, options: dict[str, Any]) -> int:

    from pi_cli.shell import (
        RewindError,
        change_sets,
        diff_json,
        diff_text,
        json_text,
        revert_session_file,
        say,
        session_changes,
    )

    try:
        if options["revert"] is not None:
            said = await revert_session_file(shell.session, shell.checkpoints, options["revert"])
            say(said)
            return OK
        result = await session_changes(
            shell.session, shell.checkpoints, "--turns" in options["flags"]
        )
    except RewindError as exc:
        say(f"pi: diff: {exc}", err=True)
        return ERROR
    finally:
        await shell.aclose()
    if result.problem:
        say(f"pi: diff: {result.problem}", err=True)
        if result.total is None:
            return OK if not result.problem.startswith("The snapshots") else ERROR
    sets = change_sets(result)
    if "--json" in options["flags"]:
        say(json_text(diff_json(sets)))  # control characters escaped: the same JSON value
    else:
        say(diff_text(sets))  # cleaned: file contents never reach the terminal raw
    return ERROR if result.problem else OK
