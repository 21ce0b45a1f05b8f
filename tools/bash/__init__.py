"""The ``bash`` tool: run a shell command under the session's sandbox and containment.

The command runs under the session's process helper (:mod:`tools.sandbox`): inside the
sandbox by default, outside with ``sandbox: false``. Its output streams back as a rolling tail;
a timeout or an abort stops it and everything it started. ``background: true`` returns at once
with an id for ``bash_output`` / ``bash_kill``.
"""

import asyncio
import os
import shutil
import time
from collections.abc import Callable, Mapping
from contextlib import suppress
from pathlib import Path
from typing import Annotated, Any

from msgspec import Meta

from agent_core import AbortSignal, ToolArguments, ToolBase, ToolError, ToolResult, first_line
from agent_core.tool import TITLE_LIMIT, OnToolUpdate
from tools._output import OutputBuffer
from tools._present import str_arg
from tools._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES
from tools.bash._result import Outcome, clean_output, finish, partial
from tools.sandbox import (
    KILL_GRACE,
    BackgroundShell,
    HelperError,
    Job,
    ProcessHost,
    Sandbox,
    SandboxUnavailable,
)

DEFAULT_TIMEOUT = 120.0
UPDATE_INTERVAL = 0.1
EXIT_DRAIN = 0.3
"""After the shell exits, how long a backgrounded child may keep the output pipe open."""
_READ_SIZE = 256 * 1024

__all__ = [
    "DEFAULT_TIMEOUT",
    "KILL_GRACE",
    "BashArgs",
    "BashTool",
    "clean_output",
    "create_bash_tool",
    "find_shell",
]


class BashArgs(ToolArguments):
    """Arguments of the bash tool."""

    command: Annotated[str, Meta(description="Bash command to execute")]
    timeout: Annotated[
        Annotated[float, Meta(gt=0)] | None,
        Meta(description=f"Timeout in seconds (default {DEFAULT_TIMEOUT:g})"),
    ] = None
    background: Annotated[
        bool,
        Meta(
            description="Start a long-running command (dev server, watcher) and return at once "
            "with an id for bash_output and bash_kill"
        ),
    ] = False
    sandbox: Annotated[
        bool,
        Meta(
            description="false runs the command outside the sandbox; only when it failed "
            "because of the sandbox, and the user is asked first"
        ),
    ] = True


def find_shell() -> str:
    """``bash`` from PATH, else the user's ``$SHELL``, else ``/bin/sh``."""
    return shutil.which("bash") or os.environ.get("SHELL") or "/bin/sh"


class BashTool(ToolBase):
    """Run a command with ``bash -c`` in the working directory.

    Its file effects are unknown (``[]``, the default): a command may touch any file.
    """

    name = "bash"
    summary = "Execute bash commands (ls, grep, git, tests, ...)"
    guideline = (
        "Use bash for running programs, tests, git and file operations such as ls, mkdir, mv; "
        "start servers and watchers with background: true."
    )
    description = (
        "Execute a bash command in the current working directory. Returns stdout and stderr "
        f"merged. Output is truncated to the last {DEFAULT_MAX_LINES} lines or "
        f"{DEFAULT_MAX_BYTES // 1024}KB, whichever comes first; when truncated, the full output "
        "is saved to a file whose path is given. stdin is closed, so interactive commands fail "
        f"instead of waiting. Optional timeout in seconds (default {DEFAULT_TIMEOUT:g}). "
        "Commands run in a sandbox where one is available: the working directory and /tmp are "
        "writable, the rest of the file system is read-only, credentials are hidden and the "
        "network is off unless the user allowed it. If a command fails because of the sandbox, "
        "you may ask the user to let you rerun it with sandbox: false. With background: true the "
        "command keeps running and the call returns its id at once; read its output with "
        "bash_output and stop it with bash_kill (it is stopped when pi exits)."
    )
    parameters = BashArgs

    def __init__(
        self,
        cwd: str | Path,
        sandbox: Sandbox | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.cwd = Path(cwd)
        self.sandbox = sandbox if sandbox is not None else Sandbox(self.cwd, mode="off")
        self.sandbox.used = True
        self.env = dict(env) if env is not None else None
        """The environment of commands (None: ``os.environ`` at call time)."""
        self.default_timeout = DEFAULT_TIMEOUT
        """A call's timeout when it gives none (settings ``bashTimeoutS``)."""

    def set_default_timeout(self, seconds: float) -> None:
        """Use ``seconds`` for calls without a ``timeout`` (the description says so too)."""
        self.default_timeout = seconds
        self.description = type(self).description.replace(
            f"(default {DEFAULT_TIMEOUT:g})", f"(default {seconds:g})"
        )

    def title(self, args: Mapping[str, Any]) -> str:
        """``$ <first line of the command>`` (``…`` marks more lines or a clipped line)."""
        command = str_arg(args, "command")
        if not command:
            return "$"
        marks = ("  &" if args.get("background") is True else "") + (
            "  (outside the sandbox)" if args.get("sandbox") is False else ""
        )
        return "$ " + first_line(command, TITLE_LIMIT - 2 - len(marks)) + marks

    async def execute(
        self,
        tool_call_id: str,
        args: BashArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Run ``args.command``; abort and timeout kill the whole process tree."""
        if cancel.aborted:
            raise ToolError("Aborted before the command started")
        if args.background:
            shell, notes = await self.start_background(args.command, args.sandbox)
            where = " in the sandbox" if shell.sandboxed else ""
            text = (
                f"Started background shell {shell.id} (pid {shell.job.pid}){where}. Read its "
                f'output with bash_output(id="{shell.id}"), stop it with '
                f'bash_kill(id="{shell.id}"); it is stopped when pi exits.'
            )
            return ToolResult.of_text(
                "\n\n".join([text, *notes]),
                details={
                    "background_id": shell.id,
                    "pid": shell.job.pid,
                    "sandboxed": shell.sandboxed,
                },
            )
        host, job, read_fd, buf, inside = await self._spawn(args.command, args.sandbox, False)
        timeout = args.timeout if args.timeout is not None else self.default_timeout
        try:
            outcome = await self._run(host, job, read_fd, buf, cancel, timeout, on_update)
        finally:
            host.forget(job.id)
        notes = await self.sandbox.after_command(inside)
        return finish(buf, job, outcome, timeout, self.sandbox if inside else None, notes)

    async def _run(
        self,
        host: ProcessHost,
        job: Job,
        read_fd: int,
        buf: OutputBuffer,
        cancel: AbortSignal,
        timeout: float,
        on_update: OnToolUpdate | None,
    ) -> Outcome:
        loop = asyncio.get_running_loop()
        pump = _OutputPump(loop, read_fd, buf, on_update)
        os.set_blocking(read_fd, False)
        loop.add_reader(read_fd, pump.on_readable)
        # Stop the tree the moment abort is requested, even before our task is cancelled.
        remove_abort = cancel.on_abort(lambda: host.kill(job.id))
        try:
            outcome = await _outcome(job, pump.eof, timeout, cancel)
            if outcome != "exit":
                host.kill(job.id)
                with suppress(TimeoutError):
                    await asyncio.wait_for(job.gone.wait(), 2 * KILL_GRACE + 3)
                with suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(pump.eof), EXIT_DRAIN)
        finally:
            pump.cancel_timer()
            remove_abort()
            loop.remove_reader(read_fd)
            os.close(read_fd)
            buf.close()
        return outcome

    async def _spawn(
        self, command: str, sandboxed: bool, background: bool
    ) -> tuple[ProcessHost, Job, int, OutputBuffer, bool]:
        """Start ``command`` under the session's helper: its host, job, output pipe, buffer and
        whether it really runs inside the sandbox (raises ToolError when it cannot)."""
        if not self.cwd.is_dir():
            raise ToolError(f"Working directory does not exist: {self.cwd}")
        try:
            host, inside = await self.sandbox.host(sandboxed)
        except SandboxUnavailable as exc:
            raise ToolError(str(exc)) from None
        except HelperError as exc:
            raise ToolError(f"Cannot run commands: {exc}") from None
        job_id = self.sandbox.next_id(background)
        env = self.sandbox.environment(self.env, inside)
        read_fd, write_fd = os.pipe()
        try:
            job = host.spawn(
                job_id,
                [find_shell(), "-c", command],
                str(self.cwd),
                env,
                write_fd,
                background=background,
                out_read_fd=read_fd,
            )
        except HelperError as exc:
            os.close(read_fd)
            raise ToolError(f"Cannot run the command: {exc}") from None
        finally:
            os.close(write_fd)
        buf = OutputBuffer(cap=self.sandbox.output_cap, directory=self.sandbox.spill_dir(inside))
        return host, job, read_fd, buf, inside

    async def start_background(
        self,
        command: str,
        sandboxed: bool = True,
        prepare: Callable[[BackgroundShell], None] | None = None,
    ) -> tuple[BackgroundShell, list[str]]:
        """Start ``command`` as a background shell of the session (``bash`` with
        ``background: true``, and the ``monitor`` tool); ``prepare`` sees the shell before
        its first output is read. Returns it and the sandbox's notes; raises ToolError."""
        host, job, read_fd, buf, inside = await self._spawn(command, sandboxed, True)
        shell = BackgroundShell(
            command,
            host,
            job,
            read_fd,
            buf,
            sandboxed=inside,
            on_change=self.sandbox.shells.changed,
        )
        if prepare is not None:
            prepare(shell)
        with suppress(TimeoutError):
            await asyncio.wait_for(job.started.wait(), 5)
        if job.error is not None:
            shell.close()
            host.forget(job.id)
            raise ToolError(f"Cannot run the command: {job.error}")
        self.sandbox.shells.add(shell)
        return shell, await self.sandbox.after_command(inside)


class _OutputPump:
    """Reads a foreground command's output into its buffer as it becomes readable, and sends
    the model's front ends its tail at most once per ``UPDATE_INTERVAL`` (a burst followed by
    silence is still shown: the deferred flush picks up the latest tail)."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        read_fd: int,
        buf: OutputBuffer,
        on_update: OnToolUpdate | None,
    ) -> None:
        self._loop = loop
        self._fd = read_fd
        self._buf = buf
        self._on_update = on_update
        self._last_update = float("-inf")
        self._timer: asyncio.TimerHandle | None = None
        self.eof: asyncio.Future[None] = loop.create_future()

    def on_readable(self) -> None:
        try:
            chunk = os.read(self._fd, _READ_SIZE)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._loop.remove_reader(self._fd)
            if not self.eof.done():
                self.eof.set_result(None)
            return
        self._buf.add(chunk)
        if self._on_update is not None and self._timer is None:
            delay = max(0.0, UPDATE_INTERVAL - (time.monotonic() - self._last_update))
            self._timer = self._loop.call_later(delay, self._flush_update)

    def _flush_update(self) -> None:
        self._timer = None
        self._last_update = time.monotonic()
        if self._on_update is not None:
            self._on_update(partial(self._buf.tail()))

    def cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


async def _outcome(
    job: Job, eof: asyncio.Future[None], timeout: float, cancel: AbortSignal
) -> Outcome:
    """How the command ended: it exited, ran out of time, or was aborted."""
    try:
        await asyncio.wait_for(_wait_exit(job, eof), timeout)
    except TimeoutError:
        return "timeout"
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()  # we handle it: kill, then report the output so far
        return "aborted"
    return "aborted" if cancel.aborted else "exit"


async def _wait_exit(job: Job, eof: asyncio.Future[None]) -> None:
    await job.exited.wait()
    # The shell is done; output still in the pipe arrives at once. Only a backgrounded child
    # holding the pipe open delays EOF, and we do not wait on it.
    with suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(eof), EXIT_DRAIN)


def create_bash_tool(
    cwd: str | Path, sandbox: Sandbox | None = None, env: Mapping[str, str] | None = None
) -> BashTool:
    """A bash tool running commands in ``cwd`` (unsandboxed but contained without a sandbox)."""
    return BashTool(cwd, sandbox, env)
