"""The ``bash`` tool: run a shell command in its own process group, streaming a rolling tail."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import time
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from agent_core import AbortSignal, ToolBase, ToolError, ToolResult, first_line
from agent_core.tool import TITLE_LIMIT, OnToolUpdate
from tools._output import OutputBuffer
from tools._present import str_arg
from tools._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, Truncation, format_size

DEFAULT_TIMEOUT = 120.0
UPDATE_INTERVAL = 0.1
KILL_GRACE = 1.0
"""Seconds between SIGTERM and SIGKILL to the process group."""
EXIT_DRAIN = 0.3
"""After the shell exits, how long a backgrounded child may keep the output pipe open."""
_READ_SIZE = 256 * 1024
# ANSI escape sequences and control characters other than tab/newline: noise for the model.
_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b.|[\x00-\x08\x0b-\x1f\x7f]"
)

Outcome = Literal["exit", "timeout", "aborted"]


class BashArgs(BaseModel):
    """Arguments of the bash tool."""

    command: str = Field(description="Bash command to execute")
    timeout: float | None = Field(
        default=None, gt=0, description=f"Timeout in seconds (default {DEFAULT_TIMEOUT:g})"
    )


def find_shell() -> str:
    """``bash`` from PATH, else the user's ``$SHELL``, else ``/bin/sh``."""
    return shutil.which("bash") or os.environ.get("SHELL") or "/bin/sh"


def clean_output(text: str) -> str:
    """Drop ANSI escapes and control characters (keeping newlines and tabs)."""
    return _CONTROL.sub("", text.replace("\r\n", "\n"))


class BashTool(ToolBase):
    """Run a command with ``bash -c`` in the working directory.

    Its file effects are unknown (``[]``, the default): a command may touch any file.
    """

    name = "bash"
    summary = "Execute bash commands (ls, grep, git, tests, ...)"
    guideline = (
        "Use bash for running programs, tests, git and file operations such as ls, mkdir, mv."
    )
    description = (
        "Execute a bash command in the current working directory. Returns stdout and stderr "
        f"merged. Output is truncated to the last {DEFAULT_MAX_LINES} lines or "
        f"{DEFAULT_MAX_BYTES // 1024}KB, whichever comes first; when truncated, the full output "
        "is saved to a file whose path is given. stdin is closed, so interactive commands fail "
        f"instead of waiting. Optional timeout in seconds (default {DEFAULT_TIMEOUT:g})."
    )
    parameters = BashArgs

    def __init__(self, cwd: str | Path, env: Mapping[str, str] | None = None) -> None:
        self.cwd = Path(cwd)
        self.env = dict(env) if env is not None else None

    def title(self, args: Mapping[str, Any]) -> str:
        """``$ <first line of the command>`` (``…`` marks more lines or a clipped line)."""
        command = str_arg(args, "command")
        return "$ " + first_line(command, TITLE_LIMIT - 2) if command else "$"

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
        if not self.cwd.is_dir():
            raise ToolError(f"Working directory does not exist: {self.cwd}")
        timeout = args.timeout if args.timeout is not None else DEFAULT_TIMEOUT
        buf = OutputBuffer()
        # Our own pipe instead of asyncio's: we can stop reading and close it when the shell
        # exits but a backgrounded child still holds the write end.
        read_fd, write_fd = os.pipe()
        try:
            proc = await asyncio.create_subprocess_exec(
                find_shell(),
                "-c",
                args.command,
                cwd=str(self.cwd),
                env=self.env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=write_fd,
                stderr=write_fd,
                start_new_session=True,
            )
        except BaseException as exc:
            os.close(read_fd)
            if isinstance(exc, OSError):
                raise ToolError(f"Cannot start shell: {exc}") from None
            raise
        finally:
            os.close(write_fd)

        loop = asyncio.get_running_loop()
        eof: asyncio.Future[None] = loop.create_future()
        last_update = float("-inf")
        timer: asyncio.TimerHandle | None = None

        def flush_update() -> None:
            nonlocal last_update, timer
            timer = None
            last_update = time.monotonic()
            if on_update is not None:
                on_update(_partial(buf.tail()))

        def on_readable() -> None:
            nonlocal timer
            try:
                chunk = os.read(read_fd, _READ_SIZE)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                loop.remove_reader(read_fd)
                if not eof.done():
                    eof.set_result(None)
                return
            buf.add(chunk)
            # Throttle: at most one update per interval, and a burst followed by silence is
            # still shown (the deferred flush picks up the latest tail).
            if on_update is not None and timer is None:
                delay = max(0.0, UPDATE_INTERVAL - (time.monotonic() - last_update))
                timer = loop.call_later(delay, flush_update)

        os.set_blocking(read_fd, False)
        loop.add_reader(read_fd, on_readable)
        # Signal the group the moment abort is requested, even before our task is cancelled.
        remove_abort = cancel.on_abort(lambda: _signal_group(proc.pid, signal.SIGTERM))
        outcome: Outcome = "exit"
        try:
            try:
                await asyncio.wait_for(_wait_exit(proc, eof), timeout)
            except TimeoutError:
                outcome = "timeout"
            except asyncio.CancelledError:
                outcome = "aborted"
                task = asyncio.current_task()
                if task is not None:
                    task.uncancel()  # we handle it: kill, then report the output so far
            if outcome == "exit" and cancel.aborted:
                outcome = "aborted"
            if outcome != "exit":
                await kill_process_tree(proc)
                with suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(eof), EXIT_DRAIN)
        finally:
            if timer is not None:
                timer.cancel()
            remove_abort()
            loop.remove_reader(read_fd)
            os.close(read_fd)
            buf.close()
        return _finish(buf, proc.returncode, outcome, timeout)


async def _wait_exit(proc: asyncio.subprocess.Process, eof: asyncio.Future[None]) -> None:
    await proc.wait()
    # The shell is done; output still in the pipe arrives at once. Only a backgrounded child
    # holding the pipe open delays EOF, and we do not wait on it.
    with suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(eof), EXIT_DRAIN)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _group_alive(pgid: int) -> bool:
    """True while any non-zombie process is in group ``pgid``."""
    proc_dir = Path("/proc")
    if not proc_dir.is_dir():
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    # Zombies are not worth waiting for (an init that never reaps would make them linger).
    for entry in os.scandir(proc_dir):
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


def _partial(cut: Truncation) -> ToolResult:
    return ToolResult.of_text(
        clean_output(cut.content),
        details={
            "truncated": cut.truncated,
            "total_lines": cut.total_lines,
            "total_bytes": cut.total_bytes,
        },
    )


def _finish(buf: OutputBuffer, code: int | None, outcome: Outcome, timeout: float) -> ToolResult:
    cut = buf.tail()
    text = clean_output(cut.content) or "(no output)"
    details: dict[str, Any] = {"exit_code": code, "truncated": cut.truncated}
    if buf.full_output_path is not None:
        details["full_output_path"] = buf.full_output_path
    if cut.truncated:
        total = cut.total_lines
        where = f"Full output: {buf.full_output_path}"
        if cut.last_line_partial:
            note = f"[Showing last {format_size(cut.output_bytes)} of line {total}. {where}]"
        else:
            start = total - cut.output_lines + 1
            limit = f" ({format_size(cut.max_bytes)} limit)" if cut.truncated_by == "bytes" else ""
            note = f"[Showing lines {start}-{total} of {total}{limit}. {where}]"
        text += "\n\n" + note
    if outcome == "aborted":
        details["aborted"] = True
        return ToolResult.of_text(
            text + "\n\nCommand aborted; the process tree was killed.", details
        )
    if outcome == "timeout":
        raise ToolError(
            f"{text}\n\nCommand timed out after {timeout:g} second{'' if timeout == 1 else 's'}; "
            "the process tree was killed."
        )
    if code:
        raise ToolError(f"{text}\n\nCommand exited with code {code}")
    return ToolResult.of_text(text, details)


def create_bash_tool(cwd: str | Path, env: Mapping[str, str] | None = None) -> BashTool:
    """A bash tool running commands in ``cwd`` with ``env`` (default: pi's environment)."""
    return BashTool(cwd, env)
