"""Drive the plain REPL through prompt-toolkit's pipe input with a scripted model."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.base import PipeInput
from prompt_toolkit.output import DummyOutput
from pydantic import BaseModel, Field
from rich.console import Console

from agent_core import AbortSignal, ToolBase, ToolResult
from pi_cli.modes.plain.repl import PlainRepl
from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from tests.agent_core.scripted_stream import ScriptedStream

ENTER, ALT_ENTER, TAB, ESC, CTRL_C, CTRL_D, CTRL_J = (
    "\r",
    "\x1b\r",
    "\t",
    "\x1b",
    "\x03",
    "\x04",
    "\n",
)


class GateArgs(BaseModel):
    """Arguments of :class:`GateTool`."""

    label: str = Field(default="", description="Anything")


class GateTool(ToolBase):
    """A tool that blocks until ``release()``: keeps a run live while the test types."""

    name = "gate"
    description = "Wait for the test."
    parameters = GateArgs

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self._open = asyncio.Event()

    def release(self) -> None:
        """Let the waiting call return."""
        self._open.set()

    async def execute(
        self, tool_call_id: str, args: GateArgs, cancel: AbortSignal, on_update: Any = None
    ) -> ToolResult:
        """Wait for :meth:`release` (or an abort)."""
        self.entered.set()
        waiter = asyncio.ensure_future(self._open.wait())
        cancelled = asyncio.ensure_future(cancel.wait())
        await asyncio.wait([waiter, cancelled], return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        cancelled.cancel()
        return ToolResult.of_text(f"gate {args.label} open\nline two\nline three")


@dataclass
class Harness:
    """A running REPL and handles to poke it."""

    repl: PlainRepl
    shell: CodingAgent
    stream: ScriptedStream
    pipe: PipeInput
    out: io.StringIO
    task: asyncio.Task[int]
    history: Path

    def send(self, text: str) -> None:
        """Type bytes into the terminal."""
        self.pipe.send_text(text)

    @property
    def output(self) -> str:
        """Everything printed into scrollback so far."""
        return self.out.getvalue()

    async def until(
        self, predicate: Callable[[], bool], timeout: float = 5.0, what: str = ""
    ) -> None:
        """Wait until ``predicate()`` holds (fails with the output so far on timeout)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not predicate():
            if loop.time() > end or self.task.done():
                if predicate():
                    return
                raise AssertionError(
                    f"timed out waiting for {what or predicate}; output:\n{self.output}"
                )
            await asyncio.sleep(0.01)

    async def idle(self) -> None:
        """Wait until no run is live."""
        await self.until(lambda: not self.repl.running, what="the run to end")

    async def quit(self) -> int:
        """Ctrl+D and wait for the REPL to exit."""
        if not self.task.done():
            self.send(CTRL_D)
        return await asyncio.wait_for(self.task, 5)


@asynccontextmanager
async def plain_repl(
    tmp_path: Path, stream: ScriptedStream, tools: list[Any] | str | None = None, **options: Any
) -> AsyncIterator[Harness]:
    """A REPL on a pipe input with a captured, colourless rich console (``options``: more
    :class:`ShellOptions`; ``tools="builtin"``: pi's own tools on the shell's sandbox)."""
    work = tmp_path / "project"
    work.mkdir(exist_ok=True)
    shell = CodingAgent(
        ShellOptions(
            cwd=work,
            stream_fn=stream,
            tool_objects=None if tools == "builtin" else list(tools or []),
            **options,
        )
    )
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, force_terminal=False, highlight=False)
    history = tmp_path / "history"
    with create_pipe_input() as pipe:
        repl = PlainRepl(
            shell, console=console, input=pipe, output=DummyOutput(), history_file=history
        )
        task = asyncio.create_task(repl.run())
        harness = Harness(repl, shell, stream, pipe, out, task, history)
        try:
            yield harness
        finally:
            if not task.done():
                shell.abort()
                pipe.send_text(CTRL_D)
                try:
                    await asyncio.wait_for(task, 5)
                except (TimeoutError, asyncio.CancelledError):
                    task.cancel()
