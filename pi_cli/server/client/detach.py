"""``pi --detach "prompt"``: start a run in the server and return at once.

The session is opened with the command line's options (``--session`` / ``-c`` reopen a stored
one, ``--model``, ``--permission-mode``...), the prompt is sent as a follow-up (it starts the
run at once when the session is idle; queued after the live run otherwise), and pi prints the
session's id: ``pi attach <id>`` shows it, ``pi ps`` lists it. An approval the run needs waits
for whoever attaches (``server.approvalTimeoutS``).
"""

from __future__ import annotations

import dataclasses
import sys
from typing import TYPE_CHECKING

from pi_cli.server.client.connect import ClientError, ensure_server
from pi_cli.server.client.session import open_body

if TYPE_CHECKING:
    from pi_cli.args import LaunchArgs


def detach(args: LaunchArgs, prompt: str, new: bool = False) -> str:
    """Open a session in the server with ``args``' options, send ``prompt``; its id (raises
    :class:`ClientError`). ``new``: a fresh session even if ``args`` name one (``&`` in an
    editor: the editor's own session stays here)."""
    options = args.shell
    if new:
        options = dataclasses.replace(options, session=None, continue_session=False)
    http = ensure_server(start=True)
    try:
        session = http.request("POST", "/api/sessions", open_body(options))
        command = {"type": "prompt", "message": prompt, "streamingBehavior": "followUp"}
        http.command(session["id"], command)
    finally:
        http.close()
    return str(session["id"])


def start_detached(args: LaunchArgs, prompt: str) -> str:
    """``& prompt`` in the TUI or the REPL: what to tell the user (started, or why not)."""
    if not prompt.strip():
        return "Nothing to start: & then a prompt starts it in the server (pi attach follows it)."
    try:
        session = detach(args, prompt, new=True)
    except ClientError as exc:
        return f"Could not start it in the server: {exc}"
    return f"Started in the server: pi attach {session[:8]} follows it, pi ps lists it."


def run_detach(args: LaunchArgs, prompt: str) -> int:
    """Open the session, send the prompt, print how to follow it; returns the exit code."""
    from pi_cli.args import ExitCode, error

    if not prompt.strip():
        error('--detach needs a prompt: pi --detach "fix the flaky test"')
        return ExitCode.USAGE
    if args.images:
        error("--detach takes no --image yet: attach and paste the image instead")
        return ExitCode.USAGE
    try:
        session = detach(args, prompt)
    except ClientError as exc:
        error(str(exc))
        return ExitCode.ERROR
    print(session)
    print(
        f"Running in the server: pi attach {session[:8]} to follow it, pi ps to list runs.",
        file=sys.stderr,
    )
    return ExitCode.OK
