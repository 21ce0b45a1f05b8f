"""Monitors in the shell: a monitor's deliveries reach the conversation at turn boundaries.

The ``monitor`` tool (:mod:`tools.bash.monitor`) watches a background command and hands each
batch of lines to :meth:`Monitors.deliver`. While a model run is live the batch is queued with
the steers (:meth:`~pi_cli.shell.input_queue.InputQueue.deliver`): the loop takes it at the next
turn boundary, never in the middle of a turn. While the shell is idle a delivery **starts a
run** (as Claude Code wakes its model), in the front ends that stay (TUI, plain REPL, RPC,
``pi serve``); one-shot and JSON mode deliver only while their run is live, and ACP (whose
client starts every turn) with the client's next prompt. While the shell is
busy otherwise (hooks, a command, compaction) deliveries wait for it to be idle. After Esc
aborted a run, deliveries wait for the user's next input (they join its first turn): a chatty
monitor cannot restart what the user just stopped.

Each delivery is also a :class:`~pi_cli.shell.events.long_running.MonitorDelivered` event (the
TUI and the plain REPL draw it in the transcript when it reaches the model; JSON and RPC
clients get it as it is queued).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from agent_core import AgentEnd, AgentStart, Message, user_message
from pi_cli.shell.events import ShellEvent, ShellStateChanged
from pi_cli.shell.events.long_running import MonitorDelivered

if TYPE_CHECKING:
    from agent_core import Tool
    from pi_cli.shell.config.settings import Settings
    from pi_cli.shell.options import ShellOptions
    from tools.bash.monitor import MonitorDelivery

MAX_WAITING = 100
"""Deliveries kept while they wait (after an abort); older ones are dropped, and a first
message says how many (nothing goes silently)."""
DROPPED_NOTE = "[monitor deliveries dropped] {count} older deliveries waited too long and were "
"dropped (monitors' newest lines follow)"


class _Queue(Protocol):
    def deliver(self, message: Message) -> None: ...
    @property
    def deliveries(self) -> int: ...
    def take_deliveries(self) -> list[Message]: ...


class _Dialogs(Protocol):
    @property
    def can_ask(self) -> bool: ...


class MonitorShell(Protocol):
    """What the monitors use of the shell."""

    @property
    def tools(self) -> list[Tool]: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def queue(self) -> _Queue: ...
    @property
    def dialogs(self) -> _Dialogs: ...
    @property
    def options(self) -> ShellOptions: ...
    @property
    def busy(self) -> bool: ...
    @property
    def run_aborted(self) -> bool: ...
    def submit(self, text: str, intent: Any = "auto") -> asyncio.Future[Any]: ...
    def subscribe(self, listener: Callable[[ShellEvent], None]) -> Callable[[], None]: ...
    def emit(self, event: ShellEvent) -> None: ...


class Monitors:
    """Where the monitor tool's deliveries go (see the module docstring)."""

    def __init__(self, shell: MonitorShell) -> None:
        self.shell = shell
        self.paused = False
        """The last run was aborted: deliveries wait for the user's next input."""
        self.dropped = 0
        self._wakeful = False  # a waiting delivery may start a run (not only the user's stops)
        self._wake_scheduled = False

    def deliver(self, delivery: MonitorDelivery) -> None:
        """Queue a batch for the model; start a run when the shell is idle."""
        queue = self.shell.queue
        if queue.deliveries >= MAX_WAITING:  # the oldest go; a first message counts them
            waiting = queue.take_deliveries()
            if self.dropped and waiting:
                waiting = waiting[1:]  # the previous note: written again below
            self.dropped += len(waiting) - (MAX_WAITING - 2)
            queue.deliver(user_message(DROPPED_NOTE.format(count=self.dropped)))
            for message in waiting[-(MAX_WAITING - 2) :]:
                queue.deliver(message)
        elif not queue.deliveries:
            self.dropped = 0  # what waited was taken: a new count
        queue.deliver(user_message(delivery.text()))
        self.shell.emit(MonitorDelivered.of(delivery))
        if not delivery.by_user:  # the user stopped it: the model hears it with the next input
            self._wakeful = True
            self._schedule_wake()

    def on_event(self, event: ShellEvent) -> None:
        """Follow runs: an abort pauses wake-ups; idle again, waiting deliveries start one."""
        if isinstance(event, AgentStart):  # its first turn takes what waits
            self.paused = self._wakeful = False
        elif isinstance(event, AgentEnd):
            self.paused = self.shell.run_aborted
        elif isinstance(event, ShellStateChanged) and event.state == "idle":
            self._schedule_wake()

    def _schedule_wake(self) -> None:
        if self._wakeful and not self._wake_scheduled and self.shell.queue.deliveries:
            self._wake_scheduled = True
            asyncio.get_running_loop().call_soon(self._wake)

    def _wake(self) -> None:
        self._wake_scheduled = False
        shell = self.shell
        if (
            shell.busy
            or self.paused
            or not (shell.dialogs.can_ask and shell.options.wake_when_idle)
        ):
            return  # a live run takes them at its next turn; else the next idle or input
        texts = [message_text(m) for m in shell.queue.take_deliveries()]
        if texts:
            shell.submit("\n\n".join(texts))


def message_text(message: Message) -> str:
    """The text of a delivered message."""
    return getattr(message, "text", "") or ""


def attach_monitors(shell: MonitorShell) -> Monitors | None:
    """Wire the shell's monitor tool (if it has one) to the conversation, paced by the
    ``monitor`` settings; ``None`` without the tool."""
    tool: Any = next((t for t in shell.tools if t.name == "monitor"), None)
    if tool is None or not hasattr(tool, "sink"):
        return None
    from tools.bash.monitor import MonitorLimits

    settings = shell.settings.monitor
    tool.limits = MonitorLimits(settings.interval_s, settings.max_lines, settings.max_line_bytes)
    monitors = Monitors(shell)
    tool.sink = monitors.deliver
    shell.subscribe(monitors.on_event)
    return monitors
