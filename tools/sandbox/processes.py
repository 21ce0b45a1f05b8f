"""Process containment for everything pi starts: nothing pi started outlives it.

Use :func:`start` (asyncio) or :func:`popen` (blocking) instead of ``asyncio.create_subprocess_exec``
/ ``subprocess.Popen`` for any process that may run for a while (MCP and language servers, the
process helper, hooks, the user's ``!`` commands, a server's workers), and :func:`stop` to end one
with everything it started. The containment is kept by the kernel, not by bookkeeping a process
could slip out of by changing its session, its process group or its environment:

* **pi is a child subreaper** (``prctl(PR_SET_CHILD_SUBREAPER)``, set on the first start): a
  process below pi whose parent dies (a daemon that ``setsid``\\ s and then ``kill -KILL $PPID``\\ s
  the reaper holding it, the child of an MCP server that exited) is re-parented to pi, not to
  init, so it is still in pi's process tree.
* **Each started process gets a parent-death signal** (``PR_SET_PDEATHSIG``, SIGKILL; opt out
  where the program sets its own, as pi's process helper does) and a new session, so Ctrl+C in
  pi's terminal reaches pi only.
* **At exit every process below pi is ended** (:func:`shutdown`, also registered with
  :mod:`atexit`): the tree is frozen (SIGSTOP, so nothing forks or escapes while it is read from
  /proc) and killed, except the subtrees of processes started with ``keep=True`` (background
  shells kept by ``--keep-bashes``). It takes a few milliseconds: exit stays immediate.

Limits: a pi killed by SIGKILL runs no exit code; its direct children still die (parent-death
signal) and sandboxed commands die with their PID namespace, but an unsandboxed daemon that had
already killed its keeper is then re-parented to init. Only a cgroup could hold that one, and an
unprivileged process has none to create on most systems (cgroup v2 delegation is rare). Orphans
pi adopts are not reaped before exit (pi cannot tell them from children other code waits for):
each that ends first stays a zombie, holding only its pid, until pi exits.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import suppress
from typing import Any

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
_SWEEP_ROUNDS = 20

_prctl: Any = None  # libc's prctl, loaded in pi before any fork (never dlopen in a child)
_contained = False
_subreaper = False
_kept: set[int] = set()
"""Pids whose subtrees outlive pi (``keep=True``)."""
_started: dict[int, str] = {}
"""Pid -> what it is, for every process started here (for :func:`running`)."""

__all__ = [
    "Tree",
    "contain",
    "descendants",
    "is_subreaper",
    "kill_with_pi",
    "popen",
    "running",
    "shutdown",
    "start",
    "stop",
]


def _load_prctl() -> Any:
    global _prctl
    if _prctl is None and sys.platform.startswith("linux"):
        try:
            import ctypes  # ~2 ms: only once a process is started

            _prctl = ctypes.CDLL(None, use_errno=True).prctl
        except (OSError, AttributeError):
            _prctl = False
    return _prctl or None


def contain() -> bool:
    """Make pi a child subreaper and sweep its tree at exit (idempotent); False where the
    kernel has no subreapers (not Linux): then only the started processes' groups are ended."""
    global _contained, _subreaper
    if not _contained:
        _contained = True
        prctl = _load_prctl()
        _subreaper = bool(prctl is not None and prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
        atexit.register(shutdown)
    return _subreaper


def is_subreaper() -> bool:
    """Whether orphans below pi are re-parented to pi (after :func:`contain`)."""
    return _subreaper


def kill_with_pi() -> Callable[[], None] | None:
    """A ``preexec_fn`` giving the child SIGKILL when pi dies (None where there is no prctl).

    It runs between fork and exec and only calls the already loaded ``prctl``. If pi died before
    it ran, the child is already an orphan: it kills itself instead of running unkept.
    """
    prctl = _load_prctl()
    if prctl is None:
        return None
    parent = os.getpid()

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)

    return preexec


def _remember(pid: int, name: str, keep: bool) -> None:
    _started[pid] = name
    if keep:
        _kept.add(pid)


async def start(
    argv: Sequence[str],
    *,
    name: str = "",
    keep: bool = False,
    die_with_pi: bool | None = None,
    **kwargs: Any,
) -> asyncio.subprocess.Process:
    """``asyncio.create_subprocess_exec(*argv, **kwargs)`` inside pi's containment.

    The process runs in a new session (its own process group), gets SIGKILL when pi dies
    (``die_with_pi``, default: unless ``keep``) and is ended at pi's exit with everything it
    started, unless ``keep``.
    Raises what ``create_subprocess_exec`` raises (``OSError`` when it cannot run).
    """
    contain()
    kwargs.setdefault("start_new_session", True)
    if (not keep if die_with_pi is None else die_with_pi) and "preexec_fn" not in kwargs:
        kwargs["preexec_fn"] = kill_with_pi()
    process = await asyncio.create_subprocess_exec(*argv, **kwargs)
    _remember(process.pid, name or str(argv[0]), keep)
    return process


def popen(
    argv: Sequence[str],
    *,
    name: str = "",
    keep: bool = False,
    die_with_pi: bool | None = None,
    **kwargs: Any,
) -> subprocess.Popen[bytes]:
    """``subprocess.Popen(argv, **kwargs)`` inside pi's containment (see :func:`start`).

    ``die_with_pi=False`` for a program that sets its own parent-death signal (a ``preexec_fn``
    makes Python fork instead of vfork: slower for a large pi).
    """
    contain()
    kwargs.setdefault("start_new_session", True)
    if (not keep if die_with_pi is None else die_with_pi) and "preexec_fn" not in kwargs:
        kwargs["preexec_fn"] = kill_with_pi()
    process: subprocess.Popen[bytes] = subprocess.Popen(list(argv), **kwargs)
    _remember(process.pid, name or str(argv[0]), keep)
    return process


def running() -> dict[int, str]:
    """The processes started here that are still alive (pid -> name)."""
    alive = {pid: name for pid, name in _started.items() if _alive(pid)}
    _started.clear()
    _started.update(alive)
    return dict(alive)


# ---------------------------------------------------------------------------- the tree


def _stat_fields(pid: int | str) -> list[bytes] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    return stat[stat.rfind(b")") + 2 :].split()


def _alive(pid: int) -> bool:
    fields = _stat_fields(pid)
    if fields is None:
        if os.path.isdir("/proc/self"):
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return bool(fields) and fields[0] not in (b"Z", b"X")


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return children
    for name in names:
        if not name.isdigit():
            continue
        fields = _stat_fields(name)
        if fields is not None and len(fields) > 1 and fields[0] not in (b"Z", b"X"):
            children.setdefault(int(fields[1]), []).append(int(name))
    return children


def descendants(root: int, skip: Iterable[int] = ()) -> list[int]:
    """Live descendants of ``root`` (parents first), not entering the subtrees of ``skip``."""
    children = _children_map()
    excluded = set(skip)
    found: list[int] = []
    todo = [pid for pid in children.get(root, []) if pid not in excluded]
    while todo:
        pid = todo.pop(0)
        found.append(pid)
        todo.extend(child for child in children.get(pid, []) if child not in excluded)
    return found


def _signal(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with suppress(OSError):
            os.kill(pid, sig)


def _freeze_and_kill(roots: Callable[[], list[int]]) -> int:
    """SIGSTOP what ``roots()`` lists until a read finds nothing new (a stopped process cannot
    fork, exit or be re-parented), then SIGKILL it all. Returns how many were killed."""
    frozen: list[int] = []
    seen: set[int] = set()
    for _ in range(_SWEEP_ROUNDS):
        new = [pid for pid in roots() if pid not in seen]
        if not new:
            break
        _signal(new, signal.SIGSTOP)
        frozen += new
        seen.update(new)
    _signal(frozen, signal.SIGKILL)
    return len(frozen)


class Tree:
    """A process and everything below it, read while the tree is intact.

    A process's children are re-parented (to pi, the subreaper) when it exits, and can no
    longer be found from it: read the tree before asking its root to stop, then :meth:`kill`
    ends the members read then that still live, and whatever they started since.
    """

    def __init__(self, root: int) -> None:
        self.root = root
        self.members = [root, *descendants(root)]

    def terminate(self) -> None:
        """SIGTERM (and SIGCONT, so a stopped one sees it) every member and the root's group."""
        with suppress(OSError):
            os.killpg(self.root, signal.SIGTERM)
        _signal(self.members, signal.SIGTERM)
        _signal(self.members, signal.SIGCONT)

    def kill(self) -> int:
        """SIGKILL every member still alive and all their descendants; how many."""
        with suppress(OSError):
            os.killpg(self.root, signal.SIGKILL)

        def live() -> list[int]:
            alive = [pid for pid in self.members if _alive(pid)]
            below = [d for pid in alive for d in descendants(pid)]
            return [*alive, *below]

        return _freeze_and_kill(live)


async def stop(process: asyncio.subprocess.Process, grace: float = 0.5) -> None:
    """End ``process`` and everything it started: SIGTERM, ``grace`` seconds, SIGKILL.

    Close its stdin first if it should get the chance to exit by itself.
    """
    tree = Tree(process.pid)
    if process.returncode is None:
        tree.terminate()
        with suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), grace)
    tree.kill()
    with suppress(TimeoutError, ProcessLookupError):
        await asyncio.wait_for(process.wait(), 2)


def shutdown() -> int:
    """End every process below pi except kept subtrees (at exit; safe to call again).

    Returns how many processes were killed. Without /proc (not Linux) the started processes'
    groups are killed instead.
    """
    me = os.getpid()
    if not os.path.isdir("/proc/self"):
        for pid in _started:
            if pid not in _kept:
                with suppress(OSError):
                    os.killpg(pid, signal.SIGKILL)
        return 0
    return _freeze_and_kill(lambda: descendants(me, skip=_kept))


async def exited(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Until ``proc`` exits (at most ``timeout`` s): woken by its pidfd when the kernel has one
    (polling every 10 ms cost a one-shot ~10 ms at exit), polled otherwise."""
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):  # an old kernel, or already reaped
        deadline = time.monotonic() + timeout
        while proc.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        return
    loop = asyncio.get_running_loop()
    gone: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not gone.done():
            gone.set_result(None)

    try:
        if proc.poll() is None:
            loop.add_reader(pidfd, readable)
            try:
                await asyncio.wait_for(gone, timeout)
            except TimeoutError:
                pass
            finally:
                loop.remove_reader(pidfd)
    finally:
        os.close(pidfd)
