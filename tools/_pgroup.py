"""Stopping a process group pi started itself (the user's own ``!cmd`` commands, which do not
run under the process helper): SIGTERM the group, then SIGKILL what is left."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from contextlib import suppress
from pathlib import Path

from tools._host import KILL_GRACE


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    """True while any non-zombie process is in group ``pgid``."""
    if not Path("/proc").is_dir():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


async def kill_process_tree(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM the process group, wait up to ``KILL_GRACE``, then SIGKILL whatever is left."""
    pgid = proc.pid
    _signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + KILL_GRACE
    while time.monotonic() < deadline and _group_alive(pgid):
        await asyncio.sleep(0.02)
    _signal_group(pgid, signal.SIGKILL)
    # SIGKILL is delivered asynchronously; wait briefly so callers can rely on "tree is gone".
    deadline = time.monotonic() + KILL_GRACE
    while time.monotonic() < deadline and _group_alive(pgid):
        await asyncio.sleep(0.01)
    with suppress(TimeoutError):
        await asyncio.wait_for(proc.wait(), 5)
