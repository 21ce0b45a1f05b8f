"""pi's side of the process helper (:mod:`._proc_helper`): start it, run commands, stop them.

One :class:`ProcessHost` is one helper process, inside bubblewrap (``prefix`` is its command
line) or not; each command runs as a :class:`Job` under its own reaper, which keeps all of the
command's descendants in its subtree."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
from array import array
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import IO

from tools.sandbox import processes

HELPER = Path(__file__).with_name("_proc_helper.py")
START_TIMEOUT = 10.0
KILL_GRACE = 1.0
"""Seconds between SIGTERM and SIGKILL for a command's process tree."""
_SEND_TIMEOUT = 10.0


class HelperError(Exception):
    """The helper could not start, or went away (the message says why, for the user)."""


class Job:
    """One command run by the helper: its status pipe, read on the event loop."""

    def __init__(
        self,
        job_id: str,
        status_fd: int,
        loop: asyncio.AbstractEventLoop,
        *,
        background: bool = False,
    ) -> None:
        self.id = job_id
        self.background = background
        self.pid: int | None = None
        """The command's pid as the helper sees it (inside the sandbox: its PID namespace)."""
        self.returncode: int | None = None
        """Exit code; negative when killed by that signal; None while running or if lost."""
        self.error: str | None = None
        """Why the command could not start (``cd`` failed, no shell...)."""
        self.exited = asyncio.Event()
        """Set when the command's shell ended (or the job was lost)."""
        self.gone = asyncio.Event()
        """Set when the command and everything it started are gone."""
        self.started = asyncio.Event()
        """Set once the command runs (``pid`` known) or could not start (``error``)."""
        self.on_change: Callable[[], None] | None = None
        """Called when the command exits and when its tree is gone."""
        self.helper_alive: Callable[[], bool] | None = None
        """Whether the helper still runs (set by the host: a lost job's reason)."""
        self._fd: int | None = status_fd
        self._buffer = b""
        self._loop = loop
        os.set_blocking(status_fd, False)
        loop.add_reader(status_fd, self._readable)

    def _readable(self) -> None:
        assert self._fd is not None
        try:
            chunk = os.read(self._fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.close()
            return
        self._buffer += chunk
        *lines, self._buffer = self._buffer.split(b"\n")
        for raw in lines:
            word, _, rest = raw.decode("utf-8", "replace").partition(" ")
            if word == "pid" and rest.isdigit():
                self.pid = int(rest)
                self.started.set()
            elif word == "exit":
                with suppress(ValueError):
                    self.returncode = int(rest)
                self.exited.set()
                self._changed()
            elif word == "error":
                self.error = rest
                self.started.set()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

    @property
    def lost(self) -> bool:
        """The helper went away before the command's exit was known."""
        return self.gone.is_set() and self.returncode is None and self.error is None

    @property
    def lost_reason(self) -> str:
        """Why a lost job was lost, for the model."""
        if self.helper_alive is not None and self.helper_alive():
            return (
                "something killed the process keeping it (its parent, pi's reaper); pi "
                "stopped everything the command had started"
            )
        return "pi's process helper went away"

    def close(self) -> None:
        """Stop listening (the status pipe's EOF, or pi is no longer interested)."""
        if self._fd is not None:
            with suppress(Exception):
                self._loop.remove_reader(self._fd)
            os.close(self._fd)
            self._fd = None
        if not self.gone.is_set():
            self.started.set()
            self.exited.set()
            self.gone.set()
            self._changed()


def _frame(obj: object) -> bytes:
    body = json.dumps(obj).encode()
    return struct.pack(">I", len(body)) + body


class ProcessHost:
    """One helper process and the commands it runs.

    Args:
        prefix: the bubblewrap command line the helper runs under (``[]``: unsandboxed).
        log_dir: where a kept background command's output goes after pi has gone.
        keep: background commands outlive pi (``--keep-bashes``); otherwise pi's exit, even a
            ``kill -9``, takes every command down with it.
    """

    def __init__(self, prefix: Sequence[str], log_dir: Path, *, keep: bool = False) -> None:
        self.prefix = list(prefix)
        self.log_dir = log_dir
        self.keep = keep
        self.jobs: dict[str, Job] = {}
        self._proc: subprocess.Popen[bytes] | None = None
        self._sock: socket.socket | None = None
        self._stderr: IO[bytes] | None = None
        self._lock = asyncio.Lock()
        self._ready = False  # the handshake was read: commands may be sent
        self._spawned_at = 0.0
        self.start_ms = 0.0
        """How long the last start took (bwrap set-up plus the helper's start-up)."""

    @property
    def alive(self) -> bool:
        """The helper is running and connected."""
        return self._proc is not None and self._sock is not None and self._proc.poll() is None

    def argv(self, ctrl_fd: int) -> list[str]:
        """The command line starting the helper with its end of the control socket."""
        argv = [*self.prefix, sys.executable, "-I", "-S", "-B", str(HELPER), str(ctrl_fd)]
        argv += ["--log-dir", str(self.log_dir)]
        if self.keep:
            argv.append("--keep")
        elif not self.prefix:  # bubblewrap's --die-with-parent does this inside the sandbox
            argv += ["--parent", str(os.getpid())]
        return argv

    def start_early(self) -> None:
        """Spawn the helper now, without waiting for it (no event loop needed): its start-up
        overlaps pi's, and :meth:`ensure` reads its handshake when the first command needs it.
        Raises :class:`HelperError` if it cannot be spawned."""
        if self._proc is None:
            self._spawn()

    async def ensure(self) -> None:
        """Start the helper unless it runs; raises :class:`HelperError` with the reason."""
        async with self._lock:
            if self.alive and not self._ready:
                try:
                    await self._finish_start()  # spawned early: read its handshake
                    return
                except HelperError:
                    self._discard()  # start it once more, the usual way (and say why it fails)
            if not self.alive:
                self._discard()
                self._spawn()
                await self._finish_start()

    async def _finish_start(self) -> None:
        assert self._sock is not None
        try:
            await self._handshake(self._sock)
        except HelperError:
            self._discard()
            raise
        self._sock.settimeout(_SEND_TIMEOUT)
        self._ready = True
        self.start_ms = (time.perf_counter() - self._spawned_at) * 1000

    def _spawn(self) -> None:
        self._spawned_at = time.perf_counter()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        if self.keep:
            self.log_dir.mkdir(parents=True, exist_ok=True)
        self._stderr = tempfile.TemporaryFile()  # read when the start fails
        # A minimal environment: the helper's is readable from inside (/proc/<pid>/environ),
        # and each command gets its own environment from pi anyway.
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
        try:
            # From the event loop's thread: the parent-death signal follows the spawning thread.
            # The helper sets its own parent-death signal (bubblewrap: --die-with-parent), and
            # a kept one must outlive pi: pi's exit sweep leaves its subtree alone.
            self._proc = processes.popen(
                self.argv(theirs.fileno()),
                name="bash helper",
                keep=self.keep,
                die_with_pi=False,
                pass_fds=[theirs.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._stderr,
                env=env,
                start_new_session=True,  # Ctrl+C in pi's terminal reaches pi, not the commands
            )
        except OSError as exc:
            ours.close()
            name = self.prefix[0] if self.prefix else "the process helper"
            raise HelperError(f"cannot start {name}: {exc}") from None
        finally:
            theirs.close()
        self._sock = ours

    async def _handshake(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        loop = asyncio.get_running_loop()
        data = b""
        deadline = time.monotonic() + START_TIMEOUT
        while len(data) < 4 or len(data) < 4 + struct.unpack(">I", data[:4])[0]:
            try:
                chunk = await asyncio.wait_for(
                    loop.sock_recv(sock, 4096), max(0.01, deadline - time.monotonic())
                )
            except TimeoutError:
                raise HelperError(self._failure("did not start in time")) from None
            if not chunk:
                raise HelperError(self._failure("exited at start"))
            data += chunk

    def _failure(self, what: str) -> str:
        text = ""
        if self._proc is not None:
            with suppress(subprocess.TimeoutExpired):
                self._proc.wait(1)
        if self._stderr is not None:
            self._stderr.seek(0)
            text = self._stderr.read(2000).decode("utf-8", "replace").strip()
        name = "bubblewrap" if self.prefix else "the process helper"
        return f"{name} {what}" + (f": {text}" if text else "")

    def spawn(
        self,
        job_id: str,
        argv: Sequence[str],
        cwd: str,
        env: Mapping[str, str],
        out_fd: int,
        *,
        background: bool = False,
        out_read_fd: int | None = None,
        in_fd: int | None = None,
        err_fd: int | None = None,
    ) -> Job:
        """Run ``argv`` with stdout/stderr on ``out_fd`` (pi keeps and closes its own copy).

        ``out_read_fd`` (the pipe's read end) lets a kept background command's output be
        drained by the helper once pi has gone. ``in_fd``/``err_fd``: its stdin (default
        ``/dev/null``) and stderr (default ``out_fd``), for a language server. Raises
        :class:`HelperError` if the helper is gone.
        """
        if not self.alive or self._sock is None or not self._ready:
            raise HelperError(self._failure("is not running"))
        status_r, status_w = os.pipe()
        fds = [out_fd, status_w]
        names = ["out", "status"]
        if self.keep and background and out_read_fd is not None:
            fds.append(out_read_fd)
            names.append("keep")
        for name, fd in (("in", in_fd), ("err", err_fd)):
            if fd is not None:
                fds.append(fd)
                names.append(name)
        message = {
            "op": "spawn",
            "id": job_id,
            "argv": list(argv),
            "cwd": cwd,
            "env": dict(env),
            "background": background,
            "grace": KILL_GRACE,
            "fds": names,
        }
        try:
            self._send(message, fds)
        except OSError as exc:
            os.close(status_r)
            raise HelperError(self._failure(f"went away ({exc.strerror or exc})")) from None
        finally:
            os.close(status_w)
        job = Job(job_id, status_r, asyncio.get_running_loop(), background=background)
        job.helper_alive = lambda: self.alive
        self.jobs[job_id] = job
        return job

    def _send(self, message: object, fds: Sequence[int] = ()) -> None:
        assert self._sock is not None
        data = _frame(message)
        ancillary = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array("i", fds))] if fds else []
        sent = self._sock.sendmsg([data], ancillary)
        if sent < len(data):
            self._sock.sendall(data[sent:])

    def kill(self, job_id: str, *, now: bool = False) -> None:
        """Stop a command and its whole tree: SIGTERM, then SIGKILL after the grace time."""
        if self._sock is None:
            return
        with suppress(OSError):
            self._send({"op": "kill", "id": job_id, "now": now})

    def init_pid(self) -> int | None:
        """The host pid of the sandbox's PID 1 (killing it ends every process inside)."""
        if not self.prefix or self._proc is None:
            return None
        try:
            children = Path(f"/proc/{self._proc.pid}/task/{self._proc.pid}/children").read_text()
        except OSError:
            return None
        first = children.split()
        return int(first[0]) if first else None

    def forget(self, job_id: str) -> None:
        """Stop watching a job (its tree may live on until pi exits)."""
        job = self.jobs.pop(job_id, None)
        if job is not None:
            job.close()

    async def aclose(self, timeout: float = KILL_GRACE + 2.0) -> None:
        """Stop every command (kept background ones excepted) and the helper."""
        if self._proc is None:
            return
        if not self._ready:
            self._discard()  # spawned early and never used: nothing runs in it to wait for
            return
        if self.keep:
            waiting = [job for job in self.jobs.values() if not job.background]
            for job in waiting:
                self.kill(job.id)
            await _wait_all([job.gone for job in waiting], timeout)
        # EOF on the control socket: the helper kills everything (or drains the kept jobs).
        self._close_socket()
        if not self.keep:
            await processes.exited(self._proc, timeout)
        self._discard()

    def _close_socket(self) -> None:
        self._ready = False
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def _discard(self) -> None:
        """Forget the helper; if it still runs without keep, SIGKILL it (its tree follows)."""
        self._close_socket()
        for job in self.jobs.values():
            job.close()
        self.jobs.clear()
        proc, self._proc = self._proc, None
        if proc is not None and not self.keep and proc.poll() is None:
            # Its tree: bubblewrap killed mid-start leaves a child without its death signal.
            processes.Tree(proc.pid).kill()
            with suppress(subprocess.TimeoutExpired):
                proc.wait(2)
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


async def _wait_all(events: list[asyncio.Event], timeout: float) -> None:
    if events:
        with suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(e.wait() for e in events)), timeout)
