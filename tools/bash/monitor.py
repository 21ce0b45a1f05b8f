"""The ``monitor`` and ``monitor_stop`` tools: a background command whose new output lines reach
the model as they arrive (Claude Code's Monitor).

The command starts as a background shell of the session, exactly as ``bash`` with
``background: true`` starts one (same sandbox, containment and permission checks; ``/bashes``
lists it, marked as a monitor). Its output is read as it comes (no polling: the event loop
wakes on the pipe); lines matching the optional ``pattern`` are **batched** (what arrives
together goes as one delivery), **rate limited** (at most one delivery per ``interval_s``) and
**capped** (``max_lines`` per delivery, ``max_line_bytes`` per line; what was dropped is
counted and said). Each delivery is handed to ``sink`` (the shell puts it into the conversation
at the next turn boundary, or starts a run when idle). The monitor ends when its command exits
(a last delivery says how), after its ``timeout``, or on ``monitor_stop`` / the user's kill.
"""

import asyncio
import re
import time
from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from msgspec import Meta

from agent_core import AbortSignal, ToolArguments, ToolError, ToolResult, first_line
from agent_core.tool import TITLE_LIMIT, OnToolUpdate
from tools._present import str_arg
from tools.bash import BashTool
from tools.bash._background_tool import BackgroundShellTool, shell_state
from tools.bash._monitor_lines import LineBatcher
from tools.sandbox import BackgroundShell, Sandbox

BATCH_DELAY = 0.05
"""Seconds a first line waits for the lines arriving with it (one delivery, not many)."""
EXIT_DRAIN = 0.3
"""After the command exits, how long output still in flight may take to arrive."""


@dataclass(frozen=True)
class MonitorLimits:
    """How deliveries are paced and capped (settings ``monitor.*``)."""

    interval_s: float = 2.0
    max_lines: int = 50
    max_line_bytes: int = 500


@dataclass(frozen=True)
class MonitorDelivery:
    """New lines of one monitor (or its end), for the conversation."""

    id: str
    description: str
    lines: tuple[str, ...] = ()
    dropped: int = 0
    """Matching lines left out of this delivery (over ``max_lines``)."""
    truncated: int = 0
    """Lines of this delivery cut to ``max_line_bytes``."""
    ended: str | None = None
    """How the monitor ended (``exited with code 0``...), on its last delivery."""
    by_user: bool = False
    """The user stopped it (``/monitors stop``, ``/bashes kill``): nothing to wake the model for."""

    def text(self) -> str:
        """What the model reads: a header line, then the lines."""
        what = f"{len(self.lines)} new line{'s' if len(self.lines) != 1 else ''}"
        notes = []
        if self.dropped:
            notes.append(f"{self.dropped} more matching lines dropped")
        if self.truncated:
            notes.append(f"{self.truncated} lines cut")
        if notes:
            what += f" ({', '.join(notes)})"
        if self.ended is not None:
            what += f"; the monitor ended: {self.ended}"
        header = f"[monitor {self.id} · {self.description}] {what}"
        return "\n".join([header, *self.lines])


MonitorSink = Callable[[MonitorDelivery], None]


class MonitorArgs(ToolArguments):
    """Arguments of the monitor tool."""

    command: Annotated[
        str, Meta(description="The command to run and watch (a log tail, a dev server...)")
    ]
    description: Annotated[
        str,
        Meta(
            max_length=80,
            description="A short label shown with each delivery ('errors in app.log')",
        ),
    ]
    pattern: Annotated[
        str | None,
        Meta(
            description="A Python regular expression: only lines it matches (re.search) are "
            "delivered; none: every line"
        ),
    ] = None
    timeout: Annotated[
        Annotated[float, Meta(gt=0)] | None,
        Meta(description="Stop the monitor after this many seconds (default: never)"),
    ] = None
    sandbox: Annotated[
        bool,
        Meta(
            description="false runs the command outside the sandbox (asks the user first), as bash"
        ),
    ] = True


class _Watch:
    """One monitor: its shell's output through the batcher to the sink, paced."""

    def __init__(
        self,
        shell: BackgroundShell,
        description: str,
        batcher: LineBatcher,
        limits: MonitorLimits,
        sink: Callable[[], MonitorSink | None],
    ) -> None:
        self.shell = shell
        self.description = description
        self.batcher = batcher
        self.limits = limits
        self.sink = sink
        self.deliveries = 0
        self.stopped_by_model = False
        self.timed_out = False
        self._last = float("-inf")
        self._timer: asyncio.TimerHandle | None = None
        self._loop = asyncio.get_running_loop()
        self.task: asyncio.Task[None] | None = None

    def on_output(self, chunk: bytes) -> None:
        if chunk:
            self.batcher.feed(chunk)
        else:
            self.batcher.finish()
        if self.batcher.pending and self._timer is None:
            wait = self._last + self.limits.interval_s - time.monotonic()
            self._timer = self._loop.call_later(max(BATCH_DELAY, wait), self.flush)

    def flush(self, ended: str | None = None, by_user: bool = False) -> None:
        self._timer = None
        if self.shell.closed:
            return
        lines, dropped, truncated = self.batcher.take()
        if not (lines or dropped or ended):
            return
        self._last = time.monotonic()
        sink = self.sink()
        if sink is not None:
            self.deliveries += 1
            delivery = MonitorDelivery(
                self.shell.id, self.description, tuple(lines), dropped, truncated, ended, by_user
            )
            sink(delivery)

    async def run(self, timeout: float | None) -> None:
        """Wait for the command's end (or the timeout), then say how it ended."""
        job = self.shell.job
        try:
            await asyncio.wait_for(job.exited.wait(), timeout)
        except TimeoutError:
            self.timed_out = True
            await self.shell.kill()
        if self.shell.closed:  # pi exits: the helper stops the command, nothing is said
            return
        with suppress(TimeoutError):
            await asyncio.wait_for(self.shell.eof.wait(), EXIT_DRAIN)
        if not job.gone.is_set():  # what it left running ends with the monitor
            await self.shell.kill()
        if self._timer is not None:
            self._timer.cancel()
        if self.stopped_by_model:
            return  # monitor_stop's result says it
        by_user = self.shell.info().state == "killed" and not self.timed_out
        self.flush(ended=self.ending(), by_user=by_user)

    def ending(self) -> str:
        if self.timed_out:
            return "stopped after its timeout"
        info = self.shell.info()
        if info.state == "killed":
            return "stopped by the user"
        return shell_state(info)


class MonitorTool(BackgroundShellTool):
    """Start a monitored background command."""

    name = "monitor"
    summary = "Watch a background command: its new output lines arrive as messages"
    guideline = (
        "Use monitor to watch a dev server, a log or a test watcher and react to what it "
        "prints (a pattern keeps only the lines that matter), instead of polling with "
        "bash_output or sleep loops."
    )
    description = (
        "Start a command in the background and watch it: its new output lines (only those "
        "matching `pattern`, a Python regular expression, when given) are delivered to you as "
        "messages while you work or while you wait, batched and rate limited, so you can react "
        "to errors, test results or a server becoming ready. The command runs like bash with "
        "background: true (same sandbox and permissions; bash_output reads its full output). "
        "The monitor ends when the command exits (you are told how), after `timeout` seconds, "
        "or with monitor_stop. Prefer a selective pattern or a filtering command (grep "
        "--line-buffered) to a flood of lines."
    )
    parameters = MonitorArgs

    def __init__(
        self,
        cwd: str | Path,
        sandbox: Sandbox | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(cwd, sandbox)
        self.bash = BashTool(cwd, self.sandbox, env)
        self.sink: MonitorSink | None = None
        """Where deliveries go (set by the shell; none: they are dropped)."""
        self.limits = MonitorLimits()
        self.watches: dict[str, _Watch] = {}

    def title(self, args: Mapping[str, Any]) -> str:
        """``◉ <description>: <command>``."""
        command = first_line(str_arg(args, "command") or "", TITLE_LIMIT)
        label = str_arg(args, "description")
        pattern = str_arg(args, "pattern")
        text = f"{label}: {command}" if label else command
        return first_line(text + (f"  /{pattern}/" if pattern else ""), TITLE_LIMIT)

    async def execute(
        self,
        tool_call_id: str,
        args: MonitorArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Start it; raises ToolError for a bad pattern or a command that cannot start."""
        if cancel.aborted:
            raise ToolError("Aborted before the command started")
        pattern = None
        if args.pattern:
            try:
                pattern = re.compile(args.pattern)
            except (re.error, RecursionError) as exc:
                raise ToolError(f"Invalid pattern {args.pattern!r}: {exc}") from None
        description = " ".join(args.description.split()) or first_line(args.command, 40)
        limits = self.limits
        batcher = LineBatcher(pattern, limits.max_lines, limits.max_line_bytes)
        watches: list[_Watch] = []

        def prepare(shell: BackgroundShell) -> None:
            shell.monitor = description
            watch = _Watch(shell, description, batcher, limits, lambda: self.sink)
            shell.on_output = watch.on_output
            watches.append(watch)

        shell, notes = await self.bash.start_background(args.command, args.sandbox, prepare)
        watch = watches[0]
        self.watches[shell.id] = watch
        watch.task = asyncio.get_running_loop().create_task(watch.run(args.timeout))
        where = " in the sandbox" if shell.sandboxed else ""
        which = f"lines matching /{args.pattern}/" if args.pattern else "its new output lines"
        text = (
            f"Started monitor {shell.id} (pid {shell.job.pid}){where}: {which} will be "
            f"delivered to you as messages (at most one every {limits.interval_s:g} s, "
            f'{limits.max_lines} lines each). Stop it with monitor_stop(id="{shell.id}"); it '
            "ends when the command exits and is stopped when pi exits."
        )
        return ToolResult.of_text(
            "\n\n".join([text, *notes]),
            details={"monitor_id": shell.id, "pid": shell.job.pid, "sandboxed": shell.sandboxed},
        )


class MonitorStopArgs(ToolArguments):
    """Arguments of the monitor_stop tool."""

    id: Annotated[str, Meta(description="The monitor's id (from the monitor tool's result)")]


class MonitorStopTool(BackgroundShellTool):
    """Stop a monitor and its command."""

    name = "monitor_stop"
    summary = "Stop a monitor and its command"
    guideline = "Use monitor_stop when you no longer need a monitor's lines."
    description = (
        "Stop a monitor started with the monitor tool: its command and everything it started "
        "are stopped, and no more of its lines are delivered."
    )
    parameters = MonitorStopArgs

    def __init__(self, cwd: str | Path, sandbox: Sandbox | None, monitors: MonitorTool) -> None:
        super().__init__(cwd, sandbox)
        self.monitors = monitors

    async def execute(
        self,
        tool_call_id: str,
        args: MonitorStopArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Stop it; raises ToolError for an unknown id or a shell that is no monitor."""
        shell = self.find_shell(args.id, cancel)
        watch = self.monitors.watches.get(shell.id)
        if watch is None:
            raise ToolError(f"{shell.id} is not a monitor (stop a background shell with bash_kill)")
        was_running = shell.state == "running"
        lines, dropped, _ = watch.batcher.take()
        watch.stopped_by_model = True
        await shell.kill()
        if watch.task is not None:
            with suppress(asyncio.CancelledError):
                await watch.task
        if was_running:
            text = f"Stopped monitor {shell.id} after {watch.deliveries} deliveries."
        else:
            text = f"Monitor {shell.id} had already ended ({shell_state(shell.info())})."
        if lines or dropped:
            more = f" (and {dropped} more)" if dropped else ""
            text += f" Lines not delivered yet{more}:\n" + "\n".join(lines)
        return ToolResult.of_text(text, details={"id": shell.id, "state": shell.info().state})


def create_monitor_tools(
    cwd: str | Path, sandbox: Sandbox | None = None, env: Mapping[str, str] | None = None
) -> tuple[MonitorTool, MonitorStopTool]:
    """The monitor tool and its monitor_stop, on the session's ``sandbox``."""
    monitor = MonitorTool(cwd, sandbox, env)
    return monitor, MonitorStopTool(cwd, monitor.sandbox, monitor)
