"""Background shells: ``bash`` with ``background: true``, read by ``bash_output``, stopped by
``bash_kill``, listed by ``/bashes``. Their output is read all the time into a capped buffer
(the same as a foreground command's), so a chatty server never blocks on a full pipe.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from tools._output import OutputBuffer

if TYPE_CHECKING:
    from tools.sandbox._host import Job, ProcessHost

ShellState = Literal["running", "exited", "killed", "lost"]
_READ = 256 * 1024


@dataclass(frozen=True)
class ShellInfo:
    """A background shell as ``/bashes`` and the footer show it."""

    id: str
    command: str
    state: ShellState
    exit_code: int | None
    pid: int | None
    started_at: float
    ended_at: float | None
    sandboxed: bool
    output_bytes: int
    unread_bytes: int
    monitor: str | None = None
    """A monitor's description (the ``monitor`` tool's shell), else ``None``."""


class BackgroundShell:
    """One background command: its job in the helper, its output, what the model has seen."""

    def __init__(
        self,
        command: str,
        host: ProcessHost,
        job: Job,
        out_fd: int,
        buffer: OutputBuffer,
        *,
        sandboxed: bool,
        on_change: Callable[[], None],
    ) -> None:
        self.id = job.id
        self.command = command
        self.host = host
        self.job = job
        self.buffer = buffer
        self.sandboxed = sandboxed
        self.started_at = time.time()
        self.ended_at: float | None = None
        self.killed = False
        self.cursor = 0
        """Bytes of output already returned by ``bash_output``."""
        self.monitor: str | None = None
        """Set by the ``monitor`` tool: its description (listings mark the shell as one)."""
        self.on_output: Callable[[bytes], None] | None = None
        """Told each chunk of output as it is read, and ``b""`` at its end (a monitor)."""
        self.eof = asyncio.Event()
        """Set when the output has ended (or pi stopped reading it)."""
        self.closed = False
        """pi stopped reading (it exits): nothing more is said about this shell."""
        self._on_change = on_change
        self._fd: int | None = out_fd
        self._loop = asyncio.get_running_loop()
        os.set_blocking(out_fd, False)
        self._loop.add_reader(out_fd, self._readable)
        job.on_change = self._job_changed

    def _readable(self) -> None:
        assert self._fd is not None
        try:
            chunk = os.read(self._fd, _READ)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if chunk:
            self.buffer.add(chunk)
            if self.on_output is not None:
                self.on_output(chunk)
        else:
            self._close_output()

    def _close_output(self) -> None:
        if self._fd is not None:
            with suppress(Exception):
                self._loop.remove_reader(self._fd)
            os.close(self._fd)
            self._fd = None
            self.buffer.close()
            self.eof.set()
            if self.on_output is not None and not self.closed:
                self.on_output(b"")

    def _job_changed(self) -> None:
        if self.job.exited.is_set() and self.ended_at is None:
            self.ended_at = time.time()
        self._on_change()

    @property
    def state(self) -> ShellState:
        """``running`` until its shell exits; ``killed`` when pi stopped it."""
        if not self.job.exited.is_set():
            return "running"
        if self.killed:
            return "killed"
        return "lost" if self.job.lost else "exited"

    def read_new(self) -> tuple[bytes, int]:
        """Output since the last call (as held in memory) and how many bytes went unseen."""
        data, skipped = self.buffer.since(self.cursor)
        self.cursor = self.buffer.total_bytes
        return data, skipped

    def info(self) -> ShellInfo:
        """A snapshot for listings."""
        return ShellInfo(
            id=self.id,
            command=self.command,
            state=self.state,
            exit_code=self.job.returncode,
            pid=self.job.pid,
            started_at=self.started_at,
            ended_at=self.ended_at,
            sandboxed=self.sandboxed,
            output_bytes=self.buffer.total_bytes,
            unread_bytes=self.buffer.total_bytes - self.cursor,
            monitor=self.monitor,
        )

    async def kill(self, timeout: float = 5.0) -> None:
        """Stop it and everything it started (SIGTERM, then SIGKILL); wait until all are gone."""
        if not self.job.gone.is_set():
            self.killed = self.killed or not self.job.exited.is_set()
            self.host.kill(self.id)
            with suppress(TimeoutError):
                await asyncio.wait_for(self.job.gone.wait(), timeout)
        await asyncio.sleep(0)  # let the last output arrive
        self._on_change()

    def close(self) -> None:
        """Stop reading (pi exits; the helper stops or keeps the command)."""
        self.closed = True
        self._close_output()
        self.job.on_change = None


class BackgroundShells:
    """The session's background shells, by id. ``on_change`` is called on every change."""

    def __init__(self) -> None:
        self._shells: dict[str, BackgroundShell] = {}
        self.on_change: Callable[[], None] | None = None

    def changed(self) -> None:
        """Tell the listener (the shell emits an event for the footer)."""
        if self.on_change is not None:
            self.on_change()

    def add(self, shell: BackgroundShell) -> None:
        """Register a started shell."""
        self._shells[shell.id] = shell
        self.changed()

    def get(self, shell_id: str) -> BackgroundShell | None:
        """The shell with this id (``bash_3``; ``3`` works too)."""
        key = shell_id.strip()
        return self._shells.get(key) or self._shells.get(f"bash_{key}")

    def all(self) -> list[BackgroundShell]:
        """Every shell of the session, oldest first."""
        return list(self._shells.values())

    def infos(self) -> list[ShellInfo]:
        """Snapshots of every shell, oldest first."""
        return [shell.info() for shell in self._shells.values()]

    @property
    def running(self) -> int:
        """How many are still running (monitors included)."""
        return sum(shell.state == "running" for shell in self._shells.values())

    @property
    def monitors_running(self) -> int:
        """How many of the running ones are monitors."""
        return sum(s.state == "running" and s.monitor is not None for s in self._shells.values())

    async def aclose(self, *, keep: bool) -> None:
        """pi exits: stop reading; without ``keep`` the helpers then kill every shell."""
        for shell in self._shells.values():
            shell.close()
