"""A desktop notification when an approval waits and nobody is attached to answer it.

``notify-send`` (libnotify) is run when the user's ``server.notify`` is ``auto`` (the default),
there is a desktop session to show it in (``DISPLAY``, ``WAYLAND_DISPLAY`` or a D-Bus session
bus) and the program exists; otherwise nothing happens (``pi ps`` still lists the wait, and
every client that attaches is asked). The program gets a few seconds, then is killed.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.shell import PermissionRequested, Settings

log = logging.getLogger("pi_cli.server")
NOTIFY_TIMEOUT_S = 5.0
_running: set[asyncio.Task[None]] = set()


def desktop_available() -> bool:
    """Whether a notification has somewhere to appear."""
    env = os.environ
    return any(env.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"))


def notify_waiting(settings: Settings, session_id: str, request: PermissionRequested) -> None:
    """Tell the user (in the background) that session ``session_id`` waits for an approval."""
    if settings.server.notify == "off" or not desktop_available():
        return
    program = shutil.which("notify-send")
    if program is None:
        return
    title = f"pi: approval needed ({session_id[:8]})"
    body = f"{request.tool_name}: {request.title}"[:300] + f"\npi attach {session_id[:8]}"
    task = asyncio.get_running_loop().create_task(_run(program, title, body))
    _running.add(task)
    task.add_done_callback(_running.discard)


async def _run(program: str, title: str, body: str) -> None:
    from tools.sandbox import processes

    try:
        process = await processes.start(
            [program, "--app-name=pi", "--urgency=critical", title, body],
            name="notify-send",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
    except OSError as exc:
        log.warning("notify-send failed: %s", exc)
        return
    try:
        await asyncio.wait_for(process.wait(), NOTIFY_TIMEOUT_S)
    except TimeoutError:
        await processes.stop(process)
