"""pi's process helper: runs the tool commands of one session and contains what they start.

pi starts one helper per session and kind (inside bubblewrap for sandboxed commands, directly
for unsandboxed ones) as ``python -I -S _proc_helper.py CTRL_FD [--keep] [--log-dir DIR]
[--parent PID]``. It imports only the standard library: it runs inside the sandbox, outside
pi's package.

Protocol (``CTRL_FD`` is one end of a stream socketpair): pi sends frames, a 4-byte big-endian
length and a JSON object, with file descriptors attached (SCM_RIGHTS) to the frame's first byte:

* ``{"op": "spawn", "id", "argv", "cwd", "env", "background", "fds"}`` with fds ``[out,
  status]`` (plus the read end of ``out`` for a background command of a ``--keep`` helper,
  ``keep``; the command's stdin, ``in``, and its own stderr, ``err``): ``fds`` names them in
  order (absent: ``out``, ``status``, ``keep``);
* ``{"op": "kill", "id", "grace"}``: stop a command and everything it started.

The helper answers once, ``{"op": "ready"}``. Per command it forks a reaper
(:mod:`tools.sandbox._proc_reaper`), which holds everything the command starts and reports on the
status pipe.

The helper is a child subreaper too: a command that kills its own reaper (``kill -KILL
$PPID``) to orphan a ``setsid`` daemon hands that daemon to the helper, which forks nothing but
reapers, so any other child is such an escapee: it is killed, with its subtree, as soon as the
helper sees a reaper die by a signal, and at the latest when pi goes away.

When pi goes away (EOF on the control socket, or the parent-death signal), every command is
killed, except background commands of a ``--keep`` helper, whose output is then drained into
``DIR/<id>.log`` (capped) until they end.
"""

from __future__ import annotations

import importlib
import json
import os
import select
import signal
import socket
import struct
import sys
import traceback
from typing import Any

if __package__:  # imported as tools.sandbox._proc_helper (type checking, tests)
    from tools.sandbox import _proc_reaper as reaper
else:  # a script inside the sandbox: the standard library, then this directory
    sys.path.append(os.path.dirname(os.path.abspath(__file__)))
    reaper = importlib.import_module("_proc_reaper")

MAX_FRAME = 64 * 1024 * 1024


def send_frame(sock: socket.socket, obj: dict[str, Any]) -> None:
    body = json.dumps(obj).encode()
    sock.sendall(struct.pack(">I", len(body)) + body)


def recv_frame(sock: socket.socket) -> tuple[dict[str, Any] | None, list[int]]:
    """One frame and its fds; (None, []) at EOF."""
    fds: list[int] = []
    size = struct.calcsize("i")
    head, ancdata, _, _ = sock.recvmsg(4, socket.CMSG_SPACE(16 * size))
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            count = len(data) // size
            fds.extend(struct.unpack(f"{count}i", data[: count * size]))
    while 0 < len(head) < 4:
        more = sock.recv(4 - len(head))
        if not more:
            break
        head += more
    if len(head) < 4:
        for fd in fds:
            os.close(fd)
        return None, []
    (length,) = struct.unpack(">I", head)
    if length > MAX_FRAME:
        raise ValueError("frame too large")
    body = b""
    while len(body) < length:
        more = sock.recv(min(1 << 20, length - len(body)))
        if not more:
            return None, fds
        body += more
    return json.loads(body), fds


class Helper:
    """The per-session server: spawns reapers, forwards kills, cleans up when pi goes."""

    def __init__(self, ctrl_fd: int, keep: bool, log_dir: str) -> None:
        self.sock: socket.socket | None = socket.socket(fileno=ctrl_fd)
        self.keep = keep
        self.log_dir = log_dir
        self.jobs: dict[str, tuple[int, bool]] = {}  # id -> (reaper pid, background)
        self.closing = False
        self.parent_died = False

    def serve(self) -> None:
        wake_r, wake_w = os.pipe()
        for fd in (wake_r, wake_w):
            os.set_blocking(fd, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        # A flag, acted on in the loop: a handler must not close the socket mid-read.
        signal.signal(signal.SIGTERM, lambda *_: setattr(self, "parent_died", True))
        signal.signal(signal.SIGHUP, lambda *_: setattr(self, "parent_died", True))
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        assert self.sock is not None
        send_frame(self.sock, {"op": "ready", "pid": os.getpid()})
        while True:
            self.reap()
            if self.parent_died:
                self.parent_gone()
            if self.sock is None and not self.jobs:
                return
            watch = [wake_r] + ([self.sock] if self.sock is not None else [])
            ready, _, _ = select.select(watch, [], [])
            if wake_r in ready:
                try:
                    while os.read(wake_r, 512):
                        pass
                except BlockingIOError:
                    pass
            if self.sock is not None and self.sock in ready:
                try:
                    msg, fds = recv_frame(self.sock)
                except (OSError, ValueError):
                    msg, fds = None, []
                if msg is None:
                    self.parent_gone()
                else:
                    try:
                        self.handle(msg, fds)
                    except Exception:  # noqa: BLE001 - one bad request must not stop the others
                        traceback.print_exc()

    def reap(self) -> None:
        escaped = False
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            for job_id, (reaper_pid, _) in list(self.jobs.items()):
                if reaper_pid == pid:
                    del self.jobs[job_id]
                    # A reaper only ever exits by itself: killed, it was killed from below.
                    escaped = escaped or os.WIFSIGNALED(status)
        if escaped:
            self.kill_strays()

    def kill_strays(self) -> None:
        """SIGKILL every process below the helper that no reaper holds (orphans adopted)."""
        reapers = {reaper_pid for reaper_pid, _ in self.jobs.values()}
        strays = reaper.descendants(os.getpid(), skip=reapers)
        reaper.signal_all(strays, signal.SIGSTOP)  # frozen: nothing forks while they are killed
        reaper.signal_all(reaper.descendants(os.getpid(), skip=reapers), signal.SIGKILL)
        reaper.signal_all(strays, signal.SIGKILL)

    def handle(self, msg: dict[str, Any], fds: list[int]) -> None:
        op = msg.get("op")
        if op == "spawn" and len(fds) >= 2:
            try:
                self.spawn(msg, fds)
            except (OSError, KeyError, TypeError, ValueError) as exc:  # fork failed, bad request
                signal.pthread_sigmask(signal.SIG_UNBLOCK, reaper.CONTROL_SIGNALS)
                try:
                    os.write(fds[1], f"error cannot start: {exc}\n".encode("utf-8", "replace"))
                except OSError:
                    pass
                for fd in fds:
                    try:
                        os.close(fd)
                    except OSError:
                        pass  # already closed by spawn
            return
        for fd in fds:
            os.close(fd)
        if op == "kill":
            job = self.jobs.get(str(msg.get("id")))
            if job is not None:
                self._signal(job[0], signal.SIGTERM if msg.get("now") else signal.SIGUSR1)

    def spawn(self, msg: dict[str, Any], fds: list[int]) -> None:
        job_id = str(msg["id"])
        named = dict(zip(msg.get("fds") or ["out", "status", "keep"], fds, strict=False))
        out_fd, status_fd = named["out"], named["status"]
        keep_fd, in_fd, err_fd = named.get("keep"), named.get("in"), named.get("err")
        # Blocked across the fork: a kill arriving before the reaper's handlers exist waits.
        signal.pthread_sigmask(signal.SIG_BLOCK, reaper.CONTROL_SIGNALS)
        pid = os.fork()
        if pid == 0:
            try:
                parent = os.getppid()
                if self.sock is not None:
                    self.sock.close()
                signal.set_wakeup_fd(-1)
                reaper.prctl(reaper.PR_SET_CHILD_SUBREAPER, 1)
                reaper.die_with(parent, signal.SIGTERM)
                reaper.Reaper(
                    msg, out_fd, status_fd, keep_fd, self.log_dir, in_fd=in_fd, err_fd=err_fd
                ).run()
            finally:
                os._exit(0)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, reaper.CONTROL_SIGNALS)
        for fd in fds:
            os.close(fd)
        self.jobs[job_id] = (pid, bool(msg.get("background")))

    @staticmethod
    def _signal(pid: int, sig: int) -> None:
        try:
            os.kill(pid, sig)
        except OSError:
            pass

    def parent_gone(self) -> None:
        """pi went away: kill every command, or drain the kept background ones."""
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        if self.closing:
            return
        self.closing = True
        self.kill_strays()
        for reaper_pid, background in self.jobs.values():
            self._signal(reaper_pid, signal.SIGUSR2 if self.keep and background else signal.SIGUSR1)


def main(argv: list[str]) -> int:
    ctrl_fd = int(argv[1])
    keep = "--keep" in argv
    log_dir = argv[argv.index("--log-dir") + 1] if "--log-dir" in argv else "/tmp"
    if "--parent" in argv:
        reaper.die_with(int(argv[argv.index("--parent") + 1]), signal.SIGTERM)
    reaper.prctl(reaper.PR_SET_CHILD_SUBREAPER, 1)
    Helper(ctrl_fd, keep, log_dir).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
