"""A language server process, started by the session's process helper like a bash command.

Inside the sandbox when bash commands run there (same namespaces, same read-only and hidden
paths, same network rule), else under the unsandboxed helper: either way the helper's reaper
holds the server's whole process tree and ends it when pi exits, even after a ``kill -9``.
The server's stdin and stdout are pipes pi holds; its stderr is kept (the last few KiB) to
say why it failed.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from contextlib import suppress
from typing import TYPE_CHECKING

from pi_cli.shell.lsp.framing import MAX_HEADER

if TYPE_CHECKING:
    from tools.sandbox import Job, ProcessHost

STDERR_TAIL = 4096


class ServerProcess:
    """A started server: its pipes, its job in the helper, what it said on stderr."""

    def __init__(
        self, host: ProcessHost, job: Job, reader: asyncio.StreamReader, write_fd: int
    ) -> None:
        self.host = host
        self.job = job
        self.reader = reader
        self._write_fd: int | None = write_fd
        self._out = bytearray()
        self._waiting = False
        self.stderr = bytearray()
        self.sandboxed = False

    @property
    def pid(self) -> int | None:
        """The server's pid as the helper sees it (inside the sandbox: its PID namespace)."""
        return self.job.pid

    @property
    def exited(self) -> bool:
        """The server process has ended."""
        return self.job.exited.is_set()

    def exit_text(self) -> str:
        """How it ended: ``exited with code N``, ``killed by signal N`` or ``running``."""
        if self.job.error:
            return f"could not start: {self.job.error}"
        code = self.job.returncode
        if code is None:
            return "running" if not self.job.gone.is_set() else "ended"
        return f"exited with code {code}" if code >= 0 else f"killed by signal {-code}"

    def stderr_tail(self, limit: int = 600) -> str:
        """The end of its stderr, trimmed."""
        text = self.stderr.decode("utf-8", "replace").strip()
        return text if len(text) <= limit else "…" + text[-limit:]

    def write(self, data: bytes) -> None:
        """Queue ``data`` for the server's stdin (dropped once the pipe is closed)."""
        if self._write_fd is None:
            return
        self._out += data
        self._flush()

    def _flush(self) -> None:
        fd = self._write_fd
        if fd is None:
            return
        while self._out:
            try:
                sent = os.write(fd, self._out)
            except BlockingIOError:
                break
            except OSError:  # the server is gone; its stdout's end tells the connection
                self.close_stdin()
                return
            del self._out[:sent]
        loop = asyncio.get_running_loop()
        if self._out and not self._waiting:
            self._waiting = True
            loop.add_writer(fd, self._writable)
        elif not self._out and self._waiting:
            self._waiting = False
            loop.remove_writer(fd)

    def _writable(self) -> None:
        self._flush()

    def close_stdin(self) -> None:
        """Close the server's stdin (LSP's ``exit`` follows its ``shutdown``)."""
        fd, self._write_fd = self._write_fd, None
        if fd is None:
            return
        if self._waiting:
            with suppress(RuntimeError):
                asyncio.get_running_loop().remove_writer(fd)
            self._waiting = False
        self._out.clear()
        with suppress(OSError):
            os.close(fd)

    def kill(self) -> None:
        """Stop the server's whole tree (SIGTERM, then SIGKILL after the grace time)."""
        self.close_stdin()
        self.host.kill(self.job.id)

    async def wait_gone(self, timeout: float) -> bool:
        """Wait until the server and everything it started are gone."""
        try:
            await asyncio.wait_for(self.job.gone.wait(), timeout)
        except TimeoutError:
            return False
        return True


async def launch(
    host: ProcessHost,
    job_id: str,
    argv: Sequence[str],
    cwd: str,
    env: Mapping[str, str],
) -> ServerProcess:
    """Start ``argv`` under ``host`` with piped stdio (raises HelperError, OSError)."""
    loop = asyncio.get_running_loop()
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        job = host.spawn(job_id, argv, cwd, env, out_w, in_fd=in_r, err_fd=err_w)
    except BaseException:
        for fd in (in_w, out_r, err_r):
            os.close(fd)
        raise
    finally:
        for fd in (in_r, out_w, err_w):
            os.close(fd)
    os.set_blocking(in_w, False)
    reader = asyncio.StreamReader(limit=MAX_HEADER)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(out_r, "rb", 0)
    )
    process = ServerProcess(host, job, reader, in_w)
    _keep_stderr(process, err_r)
    return process


def _keep_stderr(process: ServerProcess, fd: int) -> None:
    loop = asyncio.get_running_loop()
    os.set_blocking(fd, False)

    def readable() -> None:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            loop.remove_reader(fd)
            os.close(fd)
            return
        process.stderr += chunk
        del process.stderr[:-STDERR_TAIL]

    loop.add_reader(fd, readable)
