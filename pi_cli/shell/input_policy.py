"""What typed input becomes, decided once for every front end, and the shell's busy state.

While the shell is idle an input is handled at once (its hooks, then a command or a prompt run
to its end, then compaction if needed). While it is busy:

- a slash command marked ``while_running`` runs at once; any other command is refused while a
  model run is live and held (like text, below) while the shell only finishes an input;
- text becomes a **steer** (intent ``auto``/``steer``) or a **follow-up** (intent ``follow_up``)
  when a model run is live, because that run's loop drains those queues;
- otherwise (input hooks, a command, compaction) it is **held** and sent as its own input
  once the shell is free.

After an input is handled, steers and follow-ups the run did not take become held inputs, and
held inputs are sent one at a time. After an abort or a failed run nothing more is sent: what is
still queued is handed back to the front end (:class:`~pi_cli.shell.events.QueueReturned`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Literal, Protocol, TypeVar

from agent_core import AbortSignal, AgentEnd, AgentStart, AssistantMessage, ImageContent
from pi_cli.shell.commands import CommandResult, SlashCommand, SlashCommandRegistry
from pi_cli.shell.events import (
    Notice,
    QueueReturned,
    ShellEvent,
    ShellState,
    ShellStateChanged,
)
from pi_cli.shell.input_queue import InputQueue, QueuedInput

Intent = Literal["auto", "steer", "follow_up"]
Activity = Literal["preparing", "command", "compacting"]
T = TypeVar("T")
log = logging.getLogger("pi_cli")


class InputHandler(Protocol):
    """What the policy calls back on the shell (the CodingAgent)."""

    async def handle_input(self, text: str, images: list[ImageContent]) -> CommandResult | None:
        """Handle one input (hooks, then a command or a model run) while the shell is busy."""
        ...

    async def run_command(self, command: SlashCommand, args: str) -> CommandResult:
        """Run a ``while_running`` command typed while busy."""
        ...

    @property
    def is_compacting(self) -> bool:
        """A compaction is running (the policy reports the ``compacting`` state)."""
        ...


class InputPolicy:
    """The busy state, the queue policy and the chain of inputs for one shell.

    Args:
        queue: the shell's input queue.
        commands: to recognise commands typed while busy.
        handler: the shell, which handles inputs and commands.
        emit: where state changes and returned queues go.
    """

    def __init__(
        self,
        queue: InputQueue,
        commands: SlashCommandRegistry,
        handler: InputHandler,
        emit: Callable[[ShellEvent], None],
    ) -> None:
        self.queue = queue
        self.commands = commands
        self._handler = handler
        self._emit = emit
        self._activity: Activity | None = None
        self._run_live = False  # between agent_start and agent_end
        self._run_failed = False  # the last run ended with an error (or the loop crashed)
        self._run_over = False  # the input being handled has had its run (agent_end seen)
        self._signal: AbortSignal | None = None
        self._shown: ShellState = "idle"
        self._idle = asyncio.Event()
        self._idle.set()
        self._chain: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ state

    @property
    def state(self) -> ShellState:
        """What the shell is doing now."""
        if self._run_live:
            return "running"
        if self._handler.is_compacting:
            return "compacting"
        return self._activity or "idle"

    @property
    def streaming(self) -> bool:
        """A model run is live or about to start for the input being handled (pi's isStreaming).

        True from the moment a prompt is taken until its run ends; false while the shell only
        finishes a run (compaction after agent_end) or runs a command.
        """
        return self._run_live or (self.state == "preparing" and not self._run_over)

    @property
    def busy(self) -> bool:
        """Anything is in progress (input hooks, a run, a command, compaction)."""
        return self.state != "idle" or self._signal is not None

    @property
    def signal(self) -> AbortSignal | None:
        """The abort signal of the input being handled."""
        return self._signal

    @property
    def run_aborted(self) -> bool:
        """The input being handled was aborted."""
        return self._signal is not None and self._signal.aborted

    def busy_elsewhere(self) -> bool:
        """Busy with something other than the command now being handled."""
        return self.state not in ("idle", "command")

    def set_activity(self, activity: Activity | None) -> None:
        """What the input being handled is doing now (hooks, a command...)."""
        self._activity = activity
        self.update()

    def update(self) -> None:
        """Emit :class:`ShellStateChanged` if the state changed (called after every event)."""
        state = self.state
        if state != self._shown:
            self._shown = state
            self._emit(ShellStateChanged(state=state))

    def on_agent_event(self, event: ShellEvent) -> None:
        """Track the live model run (called for every agent event, before it is re-emitted)."""
        if isinstance(event, AgentStart):
            self._run_live, self._run_failed = True, False
        elif isinstance(event, AgentEnd):
            self._run_live, self._run_over = False, True
            last = next(
                (m for m in reversed(event.messages) if isinstance(m, AssistantMessage)), None
            )
            self._run_failed = event.error_message is not None or (
                last is not None and last.stop_reason == "error"
            )

    async def wait_idle(self) -> None:
        """Wait until the shell has handled every input (held ones included)."""
        await self._idle.wait()

    # ------------------------------------------------------------------ input

    def submit(
        self, text: str, intent: Intent = "auto", images: list[ImageContent] | None = None
    ) -> asyncio.Future[CommandResult | None]:
        """Decide now what ``text`` becomes; the future resolves when it has been handled.

        Must be called on the running event loop. While busy, the future of a queued text is
        already done (``None``); that of a command is its result.
        """
        loop = asyncio.get_running_loop()
        if not self.busy:
            return self.begin(
                "preparing", lambda: self._handler.handle_input(text, list(images or []))
            )
        found = self.commands.lookup(text)
        done: asyncio.Future[CommandResult | None] = loop.create_future()
        if found is not None:
            command, args = found
            if command.while_running:
                return asyncio.ensure_future(self._handler.run_command(command, args))
            if not self.streaming:  # the shell only finishes (snapshot, compaction): next
                self.queue.add(text, "held", images)
                done.set_result(None)
                return done
            done.set_result(
                CommandResult(
                    output=f"Cannot run /{command.name} while the agent is running "
                    "(wait for the run to end or abort it).",
                    error=True,
                )
            )
            return done
        if self.state == "running":
            self.queue.add(text, "follow_up" if intent == "follow_up" else "steer", images)
        else:
            self.queue.add(text, "held", images)
        done.set_result(None)
        return done

    def deliver(self, text: str, origin: str) -> None:
        """A message pi sends the model on its own (a background sub-agent's report): a steer
        while a run is live (taken at its next turn boundary, never mid-turn), held while the
        shell only finishes an input, and a run of its own when the shell is idle."""
        if not self.busy:
            task = self.begin("preparing", lambda: self._handler.handle_input(text, []))
            task.add_done_callback(_log_failure)
            return
        self.queue.add(text, "steer" if self.state == "running" else "held", origin=origin)

    def begin(self, activity: Activity, work: Callable[[], Awaitable[T]]) -> asyncio.Task[T]:
        """Hold the shell busy for ``work`` (claimed now, synchronously), then send held inputs."""
        if self.busy:
            raise RuntimeError("the shell is busy")  # callers check first
        self._signal, self._run_over = AbortSignal(), False
        self._idle.clear()
        self.set_activity(activity)
        return asyncio.get_running_loop().create_task(self._run(work))

    async def _run(self, work: Callable[[], Awaitable[T]]) -> T:
        try:
            result = await work()
        except BaseException:
            self._end(returned="error")
            raise
        self._next()
        return result

    def _next(self) -> None:
        """After one input: return the queue (abort, failure) or send the next held input."""
        if self.run_aborted:
            self._end(returned="aborted")
            return
        if self._run_failed:
            self._end(returned="error")
            return
        self.queue.hold_leftovers()
        item = self.queue.take_next_held()
        if item is None:
            self._end(returned=None)
            return
        self._signal, self._run_over = AbortSignal(), False
        self.set_activity("preparing")
        self._chain = asyncio.get_running_loop().create_task(self._replay(item))

    async def _replay(self, item: QueuedInput) -> None:
        try:
            result = await self._handler.handle_input(item.text, list(item.images))
        except Exception as exc:  # nobody awaits a replay: report it here
            log.exception("a held input failed")
            self._emit(Notice(text=f"{type(exc).__name__}: {exc}", level="error"))
            self._end(returned="error")
            return
        if result is not None and result.output:
            self._emit(Notice(text=result.output, level="error" if result.error else "info"))
        self._next()

    def _end(self, returned: Literal["aborted", "error"] | None) -> None:
        self._signal = None
        self._run_live = False
        if returned is not None:
            self.give_back(returned)
        self.set_activity(None)
        self._idle.set()

    def give_back(self, reason: Literal["aborted", "error"]) -> list[QueuedInput]:
        """Take what the user queued and hand it to the front ends (:class:`QueueReturned`);
        what pi queued itself stays for the next run."""
        items = self.queue.take_typed()
        if items:
            self._emit(QueueReturned(items=[i.wire() for i in items], reason=reason))
        return items

    def abort(self) -> None:
        """Abort the input being handled; what is queued is handed back."""
        if self._signal is not None:
            self._signal.abort()
        self.give_back("aborted")


def _log_failure(task: asyncio.Task[CommandResult | None]) -> None:
    """A run pi started by itself: nobody awaits it, so its failure is logged here."""
    if not task.cancelled() and (exc := task.exception()) is not None:
        log.error("a delivered message's run failed", exc_info=exc)
