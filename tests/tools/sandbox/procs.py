"""Finding the processes a test's commands started, from outside, through /proc.

Each test marks its commands with a unique tag (in their environment, inherited by every
descendant, and in ``sleep <tag>N`` arguments), so it can tell its own processes from
everything else on a shared machine, inside or outside a sandbox's PID namespace (the host's
/proc lists both).
"""

from __future__ import annotations

import itertools
import os
import random
import time
from pathlib import Path

_counter = itertools.count()
issued: list[str] = []
"""Every tag handed out (the conftest kills what a failed test left behind)."""


def marker() -> str:
    """A number nobody else passes to ``sleep`` (about 35 days: never ends in a test)."""
    tag = f"3{os.getpid() % 1000:03d}{next(_counter) % 100:02d}{random.randrange(100, 999)}"
    issued.append(tag)
    return tag


def kill_leftovers() -> None:
    """SIGKILL whatever the issued tags still mark (after a failure), and forget the tags."""
    for tag in issued:
        for pid in tagged(tag):
            try:
                os.kill(pid, 9)
            except OSError:
                pass
    issued.clear()


def alive(pid: int) -> bool:
    """True if ``pid`` exists and is not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] not in (b"Z", b"X")


def tagged(tag: str) -> list[int]:
    """Live pids started for ``tag``: ``PI_TEST_TAG=<tag>`` in their environment (inherited by
    every descendant), or an argument starting with the tag (``sleep <tag>2``)."""
    env = f"PI_TEST_TAG={tag}".encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            args = Path(f"/proc/{entry.name}/cmdline").read_bytes().split(b"\0")
            environ = Path(f"/proc/{entry.name}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        mine = env in environ or any(arg.startswith(tag.encode()) for arg in args)
        if mine and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def wait_until(predicate, timeout: float = 10.0, interval: float = 0.02) -> bool:
    """Poll ``predicate`` until true or ``timeout``; returns its last value."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)


def stubborn_tree(tag: str) -> str:
    """A command starting what escapes a process group: a ``setsid`` daemon (double fork), a
    SIGTERM-ignoring child, a ``nohup &`` child; each runs ``sleep <tag><n>``."""
    return (
        f"setsid sh -c 'sleep {tag}1 & exit 0' & "
        f"(trap '' TERM; sleep {tag}2; sleep {tag}2) & "
        f"nohup sleep {tag}3 > /dev/null 2>&1 & "
        "echo started"
    )


def tag_env(tag: str) -> dict[str, str]:
    """The environment for a tool's commands, marked with ``tag``."""
    return {**os.environ, "PI_TEST_TAG": tag}
