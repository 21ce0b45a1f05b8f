"""The user's own shell commands (pi's ``!cmd`` / ``!!cmd``, RPC ``bash``): run, then remembered.

A command the user runs is not a tool call: its output is recorded as pi records it, a
``bashExecution`` message in the session file, and reaches the model as a user message
("Ran `cmd`" and the fenced output) with the next prompt. ``!!`` runs keep the record but never
reach the model. While pi is busy the record waits (for the end of the live run, else for the
next input), so it cannot land between a tool call and its result or inside a compaction. Output is the last 2000 lines / 50 KB (the full output
goes to a temp file), like the bash tool's.
"""

from __future__ import annotations

import asyncio
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from agent_core import AbortSignal
from pi_cli.shell.commands import CommandResult
from pi_cli.shell.session.bash_messages import BashExecutionMessage, BashResult

if TYPE_CHECKING:
    from pi_cli.shell.context import ShellContext

_READ = 64 * 1024
_SHOWN_LINES = 20  # of a user command's output, on screen (the model gets the whole tail)
_EXIT_DRAIN_S = 0.3  # how long a backgrounded child may keep the pipe open after the shell exits


class UserBashError(Exception):
    """The command cannot run now (another one is running)."""


def parse_user_command(text: str) -> tuple[str, bool] | None:
    """``!cmd`` -> ``("cmd", True)`` (its output goes to the model), ``!!cmd`` -> ``("cmd",
    False)`` (shown only); ``None`` for anything else, a lone ``!`` included."""
    stripped = text.strip()
    if stripped.startswith("!!"):
        command, include = stripped[2:].strip(), False
    elif stripped.startswith("!"):
        command, include = stripped[1:].strip(), True
    else:
        return None
    return (command, include) if command else None


def result_text(command: str, result: BashResult, include: bool) -> str:
    """What the user sees of a command they ran: the command, the output's tail, how it ended."""
    lines = result.output.rstrip("\n").splitlines()
    shown = lines[-_SHOWN_LINES:]
    parts = [f"$ {command}"]
    if len(lines) > len(shown):
        parts.append(f"… ({len(lines) - len(shown)} earlier lines)")
    parts += shown or ["(no output)"]
    if result.cancelled:
        parts.append("(cancelled)")
    elif result.exit_code:
        parts.append(f"Command exited with code {result.exit_code}")
    if result.truncated and result.full_output_path:
        parts.append(f"Full output: {result.full_output_path}")
    parts.append(
        "(sent to the model with your next prompt)" if include else "(not sent to the model)"
    )
    return "\n".join(parts)


async def run_command(command: str, cwd: Path, signal: AbortSignal) -> BashResult:
    """Run ``command`` with bash in ``cwd`` in its own process group; abort kills the tree."""
    # The bash tool's helpers, imported when a command runs (not at every start-up).
    from tools import OutputBuffer
    from tools.bash import KILL_GRACE, clean_output, find_shell
    from tools.sandbox import processes

    buffer = OutputBuffer()
    process = await processes.start(
        [find_shell(), "-c", command],
        name="user command",
        cwd=str(cwd),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )

    async def pump() -> None:
        assert process.stdout is not None
        while chunk := await process.stdout.read(_READ):
            buffer.add(chunk)

    reader = asyncio.ensure_future(pump())
    exited = asyncio.ensure_future(process.wait())
    aborted = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({exited, aborted}, return_when=asyncio.FIRST_COMPLETED)
        cancelled = signal.aborted and not exited.done()
        if cancelled:
            await processes.stop(process, KILL_GRACE)
        with suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(reader), _EXIT_DRAIN_S)
    finally:
        for task in (reader, exited, aborted):
            task.cancel()
        buffer.close()
    cut = buffer.tail()
    return BashResult(
        output=clean_output(cut.content),
        exit_code=None if cancelled else process.returncode,
        cancelled=cancelled,
        truncated=cut.truncated,
        full_output_path=buffer.full_output_path,
    )


class UserBash:
    """The shell's part running user commands and recording them (one command at a time)."""

    def __init__(self, shell: ShellContext) -> None:
        self.shell = shell
        self.signal: AbortSignal | None = None
        self.pending: list[BashExecutionMessage] = []

    @property
    def running(self) -> bool:
        """A user command is running."""
        return self.signal is not None

    async def run(self, command: str, include_in_context: bool = True) -> BashResult:
        """Run ``command``; record it (for the next prompt unless ``include_in_context`` is off)."""
        if self.signal is not None:
            raise UserBashError("A bash command is already running (abort it first)")
        signal = self.signal = AbortSignal()
        try:
            result = await run_command(command, self.shell.cwd, signal)
        except OSError as exc:
            raise UserBashError(f"Cannot start bash: {exc}") from None
        finally:
            self.signal = None
        self.pending.append(BashExecutionMessage.of(command, result, not include_in_context))
        if not self.shell.busy:
            self.flush()
        return result

    def start(self, text: str) -> asyncio.Future[CommandResult | None] | None:
        """Run ``text`` if it is ``!cmd`` / ``!!cmd`` (interactive front ends' syntax); the
        future's result shows it. ``None``: ``text`` is no such command."""
        parsed = parse_user_command(text)
        if parsed is None:
            return None
        command, include = parsed

        async def run() -> CommandResult | None:
            try:
                result = await self.run(command, include)
            except UserBashError as exc:
                return CommandResult(output=str(exc), error=True)
            failed = result.cancelled or bool(result.exit_code)
            return CommandResult(output=result_text(command, result, include), error=failed)

        return asyncio.ensure_future(run())

    def abort(self) -> None:
        """Abort the running command (its tree is killed; the result says ``cancelled``)."""
        if self.signal is not None:
            self.signal.abort()

    def flush(self) -> None:
        """Record what waited for the run to end: session file, and context unless excluded."""
        pending, self.pending = self.pending, []
        for message in pending:
            self.shell.session.append("message", message=message.pi_wire())
            if not message.exclude_from_context:
                self.shell.agent.state.messages.append(message)
