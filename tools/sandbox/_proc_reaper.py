"""The reaper of one command (see :mod:`tools.sandbox._proc_helper`, which forks it per command).

A child subreaper (``PR_SET_CHILD_SUBREAPER``): it forks the command in a new session and reaps
every descendant, so whatever the command starts (``setsid``, a double-forked daemon,
``nohup &``) stays in its subtree, where :func:`descendants` finds it to be killed. It writes
``pid N``, then ``exit CODE`` (negative: killed by that signal) or ``error TEXT`` to its status
pipe, and exits once its subtree is empty: EOF on the status pipe means "all gone".

Signals from the helper: SIGUSR1 stops the tree (SIGTERM, SIGKILL after the grace time),
SIGTERM stops it at once (the helper died: its parent-death signal), SIGUSR2 drains a kept
background command's output into a log file (pi has gone). Standard library only.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import sys
import time
from typing import Any

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
CONTROL_SIGNALS = {signal.SIGUSR1, signal.SIGUSR2, signal.SIGTERM}
LOG_CAP = 50 * 1024 * 1024
_libc = None


def prctl(option: int, value: int) -> bool:
    """Linux prctl(2); False where it does not exist or fails."""
    global _libc
    if not sys.platform.startswith("linux"):
        return False
    try:
        if _libc is None:
            _libc = ctypes.CDLL(None, use_errno=True)
        return bool(_libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def die_with(parent: int, sig: int) -> None:
    """Get ``sig`` when ``parent`` dies; if it already did, act as if it arrived."""
    prctl(PR_SET_PDEATHSIG, sig)
    if os.getppid() != parent:
        os.kill(os.getpid(), sig)


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1 and fields[0] not in (b"Z", b"X"):
            children.setdefault(int(fields[1]), []).append(int(name))
    return children


def descendants(root: int, skip: set[int] | frozenset[int] = frozenset()) -> list[int]:
    """Live descendants of ``root``, parents before children (a subreaper holds them all),
    not entering the subtrees of ``skip``."""
    if not os.path.isdir("/proc/self"):
        return []
    children = _children_map()
    found: list[int] = []
    todo = [pid for pid in children.get(root, []) if pid not in skip]
    while todo:
        pid = todo.pop(0)
        found.append(pid)
        todo.extend(child for child in children.get(pid, []) if child not in skip)
    return found


def signal_all(pids: list[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
            if sig == signal.SIGTERM:
                os.kill(pid, signal.SIGCONT)  # a stopped process must run to see the TERM
        except OSError:
            pass


class Reaper:
    """One command and its whole process subtree (runs in a child of the helper)."""

    def __init__(
        self,
        msg: dict[str, Any],
        out_fd: int,
        status_fd: int,
        keep_fd: int | None,
        log_dir: str,
        *,
        in_fd: int | None = None,
        err_fd: int | None = None,
    ):
        self.msg = msg
        self.out_fd = out_fd
        self.in_fd = in_fd
        self.err_fd = err_fd
        self.status_fd = status_fd
        self.keep_fd = keep_fd
        self.log_dir = log_dir
        self.child = 0
        self.kill_deadline: float | None = None  # stopping: SIGKILL from this time on
        self.drain_file: int | None = None
        self.drained = 0

    def say(self, line: str) -> None:
        try:
            os.write(self.status_fd, (line + "\n").encode("utf-8", "replace"))
        except OSError:
            pass  # pi stopped listening (a finished foreground command's leftovers)

    def start_child(self) -> None:
        err_r, err_w = os.pipe()
        os.set_inheritable(err_w, False)
        pid = os.fork()
        if pid == 0:
            self._exec(err_w)
        os.close(err_w)
        for fd in (self.out_fd, self.in_fd, self.err_fd):
            if fd is not None:
                os.close(fd)
        self.child = pid
        self.say(f"pid {pid}")
        failure = b""
        while chunk := os.read(err_r, 4096):  # EOF at exec (close-on-exec) or after a failure
            failure += chunk
        os.close(err_r)
        if failure:
            self.say("error " + failure.decode("utf-8", "replace"))

    def _exec(self, err_w: int) -> None:
        try:
            os.setsid()
            for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, signal.SIG_DFL)
            for sig in (signal.SIGCHLD, signal.SIGUSR1, signal.SIGUSR2, signal.SIGHUP):
                signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            stdin = self.in_fd if self.in_fd is not None else os.open(os.devnull, os.O_RDONLY)
            os.dup2(stdin, 0)
            os.dup2(self.out_fd, 1)
            os.dup2(self.err_fd if self.err_fd is not None else self.out_fd, 2)
            keep = sorted({0, 1, 2, err_w})
            top = max(err_w + 1, min(os.sysconf("SC_OPEN_MAX"), 1 << 16))
            for low, high in zip(keep, [*keep[1:], top], strict=True):
                os.closerange(low + 1, high)
            os.chdir(self.msg["cwd"])
            argv = self.msg["argv"]
            os.execve(argv[0], argv, self.msg["env"])
        except BaseException as exc:  # noqa: BLE001 - report and leave, never return to the helper
            text = f"{exc.strerror or exc}" if isinstance(exc, OSError) else repr(exc)
            try:
                os.write(err_w, text.encode("utf-8", "replace"))
            finally:
                os._exit(127)

    def run(self) -> None:
        wake_r, wake_w = os.pipe()
        for fd in (wake_r, wake_w):
            os.set_blocking(fd, False)
        signal.set_wakeup_fd(wake_w)
        flags: set[str] = set()
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGUSR1, lambda *_: flags.add("kill"))
        signal.signal(signal.SIGTERM, lambda *_: flags.add("now"))
        signal.signal(signal.SIGUSR2, lambda *_: flags.add("drain"))
        signal.pthread_sigmask(signal.SIG_UNBLOCK, CONTROL_SIGNALS)  # blocked since the fork
        self.start_child()
        while True:
            if not self.reap():
                break
            self.act_on(flags)
            watch = [wake_r]
            if self.drain_file is not None and self.keep_fd is not None:
                watch.append(self.keep_fd)
            timeout = 0.02 if self.kill_deadline is not None else None
            ready, _, _ = select.select(watch, [], [], timeout)
            if wake_r in ready:
                _empty(wake_r)
            if self.keep_fd is not None and self.keep_fd in ready:
                self.drain()
        while self.drain_file is not None and self.keep_fd is not None:
            self.drain()  # what the last writer left in the pipe
        os._exit(0)

    def act_on(self, flags: set[str]) -> None:
        """What the signals asked: kill now, kill after the grace period, drain to a log."""
        if "now" in flags and self.kill_deadline is None:
            self.kill_deadline = time.monotonic()
        elif "kill" in flags and self.kill_deadline is None:
            signal_all(descendants(os.getpid()), signal.SIGTERM)
            self.kill_deadline = time.monotonic() + float(self.msg.get("grace", 1.0))
        if self.kill_deadline is not None and time.monotonic() >= self.kill_deadline:
            signal_all(descendants(os.getpid()), signal.SIGKILL)
        if "drain" in flags and self.keep_fd is not None and self.drain_file is None:
            self.open_drain()

    def reap(self) -> bool:
        """Reap what has exited; False once no child is left."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            if pid == 0:
                return True
            if pid == self.child:
                self.say(f"exit {os.waitstatus_to_exitcode(status)}")

    def open_drain(self) -> None:
        path = os.path.join(self.log_dir, f"{self.msg['id']}.log")
        self.drain_file = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.set_blocking(self.keep_fd, False)  # type: ignore[arg-type]

    def drain(self) -> None:
        assert self.keep_fd is not None and self.drain_file is not None
        try:
            data = os.read(self.keep_fd, 65536)
        except BlockingIOError:
            data = b""
        if not data:
            os.close(self.keep_fd)
            self.keep_fd = None
            return
        if self.drained < LOG_CAP:
            os.write(self.drain_file, data[: LOG_CAP - self.drained])
        self.drained += len(data)


def _empty(fd: int) -> None:
    """Read a non-blocking pipe until it is empty (the signal wake-up bytes)."""
    while True:
        try:
            if not os.read(fd, 512):
                return
        except BlockingIOError:
            return
