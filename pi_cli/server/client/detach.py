"""``pi --detach "prompt"``: start a run in the server and return at once.

The session is opened with the command line's options (``--session`` / ``-c`` reopen a stored
one, ``--model``, ``--permission-mode``...), the prompt is sent as a follow-up (it starts the
run at once when the session is idle; queued after the live run otherwise), and pi prints the
session's id: ``pi attach <id>`` shows it, ``pi ps`` lists it. An approval the run needs waits
for whoever attaches (``server.approvalTimeoutS``).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from pi_cli.server.client.connect import ClientError, ensure_server
from pi_cli.server.client.session import open_body

if TYPE_CHECKING:
    from pi_cli.args import LaunchArgs


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
        http = ensure_server(start=True)
        try:
            session = http.request("POST", "/api/sessions", open_body(args.shell))
            command = {"type": "prompt", "message": prompt, "streamingBehavior": "followUp"}
            http.command(session["id"], command)
        finally:
            http.close()
    except ClientError as exc:
        error(str(exc))
        return ExitCode.ERROR
    short = session["id"][:8]
    print(session["id"])
    print(
        f"Running in the server: pi attach {short} to follow it, pi ps to list runs.",
        file=sys.stderr,
    )
    return ExitCode.OK
