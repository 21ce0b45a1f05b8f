"""``pi ps``: the server's sessions and runs (state, workspace, model, cost, approvals waiting).

``pi ps`` never starts a server: with none running it lists the sessions the last one left
(stored, or interrupted when a run was live). ``--json`` prints the API's list as it is;
``--close ID`` closes a session (aborting its run) and forgets it.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

USAGE = "usage: pi ps [--json] [--close ID]"


def accepts(argv: list[str]) -> bool:
    """``pi ps``, ``pi ps --json``, ``pi ps --close ID`` (anything else stays a prompt)."""
    if argv in ([], ["--json"]):
        return True
    return len(argv) == 2 and argv[0] == "--close" and not argv[1].startswith("-")


def run(argv: list[str]) -> int:
    """List (or close) sessions; returns the exit code."""
    from pi_cli.args import error
    from pi_cli.server.client.connect import ClientError, TokenRefused, ensure_server

    try:
        http = ensure_server(start=False)
    except TokenRefused as exc:
        error(str(exc))
        return 1
    except ClientError:
        if argv and argv[0] == "--close":
            error("no server is running")
            return 1
        return _show(_stored(), argv == ["--json"], running=False)
    try:
        if argv and argv[0] == "--close":
            done = http.request("DELETE", f"/api/sessions/{argv[1]}")
            print(f"Closed session {done['id']}.")
            return 0
        sessions = http.request("GET", "/api/sessions")["sessions"]
    except ClientError as exc:
        error(str(exc))
        return 1
    finally:
        http.close()
    return _show(sessions, argv == ["--json"], running=True)


def _stored() -> list[dict[str, Any]]:
    """The sessions the registry lists when no server runs (their runs were interrupted)."""
    from pi_cli.server.registry import Registry

    sessions = []
    for key, entry in Registry().entries.items():
        interrupted = entry.get("interrupted") or (
            "the server stopped while it ran" if entry.get("running") else None
        )
        sessions.append(
            {
                "id": key,
                "cwd": entry.get("cwd", ""),
                "title": entry.get("title", ""),
                "name": entry.get("name"),
                "model": entry.get("model", ""),
                "state": "interrupted" if interrupted else "stored",
                "live": False,
                "waitingForApproval": 0,
                "approval": None,
                "cost": entry.get("cost", 0.0),
                "clients": [],
                "lastActivity": entry.get("lastActivity", 0.0),
                "interrupted": interrupted,
            }
        )
    return sorted(sessions, key=lambda s: -float(s["lastActivity"] or 0))


def _show(sessions: list[dict[str, Any]], as_json: bool, running: bool) -> int:
    if as_json:
        print(json.dumps({"running": running, "sessions": sessions}, indent=1))
        return 0
    if not running:
        print("No server is running (pi attach or pi --detach starts one).", file=sys.stderr)
    if not sessions:
        print("No sessions.")
        return 0
    rows: list[tuple[str, ...]] = [
        ("ID", "STATE", "CLIENTS", "COST", "ACTIVE", "MODEL", "WORKSPACE", "TITLE")
    ]
    rows += [_row(s) for s in sessions]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False))
            + "  "
            + row[-1]
        )
    for session in sessions:
        approval = session.get("approval")
        if approval:
            print(
                f"\n{session['id'][:8]} waits for approval: {approval['tool']}: {approval['title']}"
                f"  (pi attach {session['id'][:8]})"
            )
    return 0


def _row(session: dict[str, Any]) -> tuple[str, ...]:
    state = session["state"]
    if session.get("waitingForApproval"):
        state = "waiting"
    title = session.get("name") or session.get("title") or ""
    return (
        session["id"][:8],
        state,
        str(len(session.get("clients") or [])),
        f"${float(session.get('cost') or 0):.4f}",
        _ago(float(session.get("lastActivity") or 0)),
        session.get("model") or "",
        _home(session.get("cwd") or ""),
        title[:60],
    )


def _ago(when: float) -> str:
    if not when:
        return "-"
    seconds = max(0, time.time() - when)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return f"{int(seconds)}s ago"


def _home(path: str) -> str:
    home = str(Path.home())
    return "~" + path[len(home) :] if path == home or path.startswith(home + "/") else path
