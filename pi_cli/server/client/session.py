"""Opening and finding a server's sessions from a client, and attaching a :class:`RemoteShell`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.server.client.connect import ClientError, Http, ServerAddress

if TYPE_CHECKING:
    from pi_cli.server.client.remote import RemoteShell
    from pi_cli.shell import ShellOptions

OPEN_TIMEOUT_S = 30.0


def open_body(options: ShellOptions) -> dict[str, Any]:
    """``POST /api/sessions``'s body for the command line's shell options."""
    from pi_cli.secret_env import HELD_API_KEY

    body: dict[str, Any] = {"cwd": str(Path(options.cwd).resolve())}
    pairs: list[tuple[str, Any]] = [
        ("session", options.session),
        ("continue", options.continue_session or None),
        ("model", options.model),
        ("provider", options.provider),
        ("apiBase", options.api_base),
        ("apiKey", options.api_key or (HELD_API_KEY[0] if HELD_API_KEY else None)),
        ("thinking", options.thinking),
        ("tools", options.tools),
        ("noTools", options.no_tools or None),
        ("systemPrompt", options.system_prompt),
        ("appendSystemPrompt", options.append_system_prompt),
        ("persistSession", False if not options.persist_session else None),
        ("skills", options.skill_paths or None),
        ("permissionMode", options.permission_mode),
        ("skipPermissions", options.skip_permissions or None),
        ("allowedTools", options.allowed_tools or None),
        ("disallowedTools", options.disallowed_tools or None),
        ("addDirs", options.add_dirs or None),
        ("trust", options.trust),
        ("maxTurns", _int(options.max_turns)),
        ("maxCost", _float(options.max_cost)),
    ]
    body.update({key: value for key, value in pairs if value is not None})
    return body


def _int(value: object) -> int | None:
    if value is None:
        return None
    try:
        return int(str(value))
    except ValueError:
        raise ClientError(f"--max-turns: {value!r} is not a whole number") from None


def _float(value: object) -> float | None:
    if value is None:
        return None
    try:
        return float(str(value))
    except ValueError:
        raise ClientError(f"--max-cost: {value!r} is not a number") from None


def choose_session(http: Http, ref: str | None, cwd: Path) -> dict[str, Any]:
    """The session ``ref`` names (an id or a unique prefix), or the best one to attach to:
    one waiting for an approval, else the latest active one of this directory, else of any."""
    listing: list[dict[str, Any]] = http.request("GET", "/api/sessions")["sessions"]
    if ref:
        exact = [s for s in listing if s["id"] == ref]
        found = exact or [s for s in listing if s["id"].startswith(ref)]
        if len(found) == 1:
            return found[0]
        if found:
            raise ClientError(f"{ref!r} names {len(found)} sessions: give more of the id (pi ps)")
        raise ClientError(f"no session {ref!r} in the server (pi ps lists them)")
    live = [s for s in listing if s["live"]] or [s for s in listing if s["state"] == "interrupted"]
    if not live:
        raise ClientError('the server hosts no session: start one with pi --detach "..."')
    here = str(cwd.resolve())
    waiting = [s for s in live if s["waitingForApproval"]]
    mine = [s for s in live if s["cwd"] == here]
    ordered = sorted(waiting or mine or live, key=lambda s: -float(s["lastActivity"] or 0))
    return ordered[0]


async def attach_remote(where: ServerAddress, session_id: str, label: str) -> RemoteShell:
    """Connect to ``session_id``'s WebSocket and build the proxy (raises :class:`ClientError`)."""
    from websockets.asyncio.client import connect, unix_connect
    from websockets.exceptions import InvalidStatus, WebSocketException

    from pi_cli.server.client.remote import RemoteShell

    uri = where.ws_uri(session_id, label)
    options: dict[str, Any] = {
        "additional_headers": where.headers(),
        "max_size": None,  # the attached line holds the whole conversation
        "open_timeout": OPEN_TIMEOUT_S,
        "ping_interval": 20,
        "ping_timeout": 60,
        "compression": None,
    }
    try:
        if where.socket is not None:
            ws = await unix_connect(os.fspath(where.socket), uri, **options)
        else:
            ws = await connect(uri, **options)
        hello = json.loads(await ws.recv())
    except InvalidStatus as exc:
        body = exc.response.body.decode("utf-8", "replace") if exc.response.body else ""
        raise ClientError(
            _problem(body) or f"the server refused ({exc.response.status_code})"
        ) from None
    except (OSError, WebSocketException, TimeoutError, ValueError) as exc:
        raise ClientError(f"cannot attach to {session_id}: {exc}") from None
    if not isinstance(hello, dict) or hello.get("type") != "attached":
        await ws.close()
        raise ClientError("the server did not answer as a pi server")
    shell = RemoteShell(ws, hello)
    shell.start()
    await shell.load_commands()
    await shell.refresh_tree()
    return shell


def _problem(body: str) -> str:
    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()
    return str(data.get("error", "")) if isinstance(data, dict) else ""
