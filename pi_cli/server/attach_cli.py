"""``pi attach [ID] [--plain]``: the TUI (or the plain REPL) on a session living in the server.

The whole transcript first, then live; typing, steering, follow-ups, approvals, Esc and slash
commands work as in a local session (the front ends drive a
:class:`~pi_cli.server.client.remote.RemoteShell`). Quitting leaves the session's run going.
Without an ID: a session waiting for an approval, else the latest active one of this directory,
else the latest active one. A server is started when none runs (then stops when idle).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

USAGE = "usage: pi attach [ID] [--plain]"
_ID = re.compile(r"[0-9a-fA-F][0-9a-fA-F-]{3,}")


def accepts(argv: list[str]) -> bool:
    """``pi attach``, ``pi attach 3f2a``, ``--plain`` anywhere (``pi attach the cable`` is a
    prompt)."""
    words = [a for a in argv if a != "--plain"]
    if len(argv) - len(words) > 1 or len(words) > 1:
        return False
    return not words or bool(_ID.fullmatch(words[0]))


def run(argv: list[str]) -> int:
    """Attach until the user quits; returns the exit code."""
    from pi_cli.args import ExitCode, error
    from pi_cli.server.client.connect import ClientError, ensure_server
    from pi_cli.server.client.session import choose_session

    words = [a for a in argv if a != "--plain"]
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        error("pi attach needs a terminal (pi ps lists sessions; the API serves programs)")
        return ExitCode.USAGE
    try:
        http = ensure_server(start=True)
        try:
            session = choose_session(http, words[0] if words else None, Path.cwd())
        finally:
            http.close()
    except ClientError as exc:
        error(str(exc))
        return ExitCode.ERROR
    plain = "--plain" in argv or os.environ.get("TERM") == "dumb"
    if plain:
        from pi_cli.server.client.plain import run_plain_remote

        code = run_plain_remote(http.where, session["id"])
    else:
        from pi_cli.server.client.tui import run_tui_remote

        code = run_tui_remote(http.where, session["id"])
    print(f"Detached; the session goes on in the server: pi attach {session['id'][:8]}")
    return code
