"""The ``Agent``: state, the steer and follow-up queues, abort and event subscription."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Literal

from agent_core.abort import AbortSignal
from agent_core.context import (
    AgentContext,
    AgentLoopConfig,
    MessageSource,
    ShouldStop,
    ToolExecutionMode,
    TransformContext,
)
from agent_core.events import (
    AgentEnd,
    AgentEvent,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    ToolExecutionEnd,
    ToolExecutionStart,
)
from agent_core.loop import run_agent_loop, run_agent_loop_continue
from agent_core.messages import (
    AssistantMessage,
    ImageContent,
    Message,
    UserMessage,
    freeze,
    user_message,
)
from agent_core.stream import OnRetry, OnRetryEnd, StreamFn
from agent_core.tool import AfterToolCall, BeforeToolCall, Tool

log = logging.getLogger("agent_core")

QueueMode = Literal["one-at-a-time", "all"]
Listener = Callable[[AgentEvent], None]
"""Receives every event in order; an exception it raises is logged, never propagated."""


class AgentBusyError(RuntimeError):
    """``prompt``/``continue_`` was called while a run is live."""


@dataclass
class AgentState:
    """What front ends may read. Mutated only by the Agent."""

    messages: list[Message] = field(default_factory=list)
    is_streaming: bool = False
    stream_message: AssistantMessage | None = None
    pending_tool_calls: set[str] = field(default_factory=set)
    steering_queue: list[Message] = field(default_factory=list)
    follow_up_queue: list[Message] = field(default_factory=list)
    error: str | None = None


def _as_message(item: str | Message) -> Message:
    return user_message(item) if isinstance(item, str) else item


class Agent:
    """Runs the loop for one conversation.

    Args:
        stream_fn: how to reach the model.
        model: model id passed to ``stream_fn``.
        system_prompt: the system prompt.
        tools: the tools the model may call.
        thinking: reasoning level (``off``, ``low``, ``medium``, ``high``).
        tool_execution: ``parallel`` (default) or ``sequential``.
        steering_mode / follow_up_mode: deliver queued messages ``one-at-a-time`` or ``all``.
        get_steering_messages / get_follow_up_messages: drain an outside queue instead of the
            agent's own (a shell that owns its queue with ids, editing and reordering).
    """

    def __init__(
        self,
        stream_fn: StreamFn,
        *,
        model: str = "",
        system_prompt: str = "",
        tools: list[Tool] | None = None,
        messages: list[Message] | None = None,
        thinking: str = "off",
        max_tokens: int | None = None,
        tool_execution: ToolExecutionMode = "parallel",
        steering_mode: QueueMode = "one-at-a-time",
        follow_up_mode: QueueMode = "one-at-a-time",
        before_tool_call: BeforeToolCall | None = None,
        after_tool_call: AfterToolCall | None = None,
        transform_context: TransformContext | None = None,
        get_steering_messages: MessageSource | None = None,
        get_follow_up_messages: MessageSource | None = None,
    ) -> None:
        self.stream_fn = stream_fn
        self.model = model
        # The identity the provider reports (see AgentLoopConfig); "" when unknown.
        self.api = ""
        self.provider = ""
        self.model_name = ""
        self.system_prompt = system_prompt
        self.tools: list[Tool] = list(tools or [])
        self.thinking = thinking
        self.max_tokens = max_tokens
        self.tool_execution = tool_execution
        self.steering_mode: QueueMode = steering_mode
        self.follow_up_mode: QueueMode = follow_up_mode
        self.before_tool_call = before_tool_call
        self.after_tool_call = after_tool_call
        self.transform_context = transform_context
        self.on_retry: OnRetry | None = None
        self.on_retry_end: OnRetryEnd | None = None
        # Asked before each turn after the first; True ends the run there (budgets).
        self.should_stop: ShouldStop | None = None
        # Wraps the stream function for each run (a shell's request hooks: inspect or rewrite a
        # request, send it to another model); read when a run starts.
        self.stream_middleware: Callable[[StreamFn], StreamFn] | None = None
        self._external_steering = get_steering_messages
        self._external_follow_ups = get_follow_up_messages
        self.state = AgentState(messages=[freeze(message) for message in messages or []])
        self._listeners: list[Listener] = []
        self._signal: AbortSignal | None = None
        self._idle = asyncio.Event()
        self._idle.set()

    # ------------------------------------------------------------------ events

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(event)`` for every event. Returns an unsubscribe function."""
        self._listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return unsubscribe

    def _emit(self, event: AgentEvent) -> None:
        state = self.state
        if isinstance(event, MessageStart | MessageUpdate) and isinstance(
            event.message, AssistantMessage
        ):
            state.stream_message = event.message
        elif isinstance(event, MessageEnd):
            state.stream_message = None
            if isinstance(event.message, AssistantMessage) and event.message.error_message:
                state.error = event.message.error_message
        elif isinstance(event, ToolExecutionStart):
            state.pending_tool_calls.add(event.tool_call_id)
        elif isinstance(event, ToolExecutionEnd):
            state.pending_tool_calls.discard(event.tool_call_id)
        elif isinstance(event, AgentEnd):
            state.pending_tool_calls.clear()
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # a broken listener must never kill the loop
                log.exception("agent event listener failed on %s", event.type)

    # ------------------------------------------------------------------ queues

    def steer(self, item: str | Message) -> None:
        """Queue a message for the start of the next turn (skips the rest of a tool batch)."""
        self.state.steering_queue.append(_as_message(item))

    def follow_up(self, item: str | Message) -> None:
        """Queue a message to handle only after the agent would otherwise stop."""
        self.state.follow_up_queue.append(_as_message(item))

    def clear_steering_queue(self) -> list[Message]:
        """Empty the steering queue; returns what it held."""
        taken, self.state.steering_queue = self.state.steering_queue, []
        return taken

    def clear_follow_up_queue(self) -> list[Message]:
        """Empty the follow-up queue; returns what it held."""
        taken, self.state.follow_up_queue = self.state.follow_up_queue, []
        return taken

    def clear_queues(self) -> tuple[list[Message], list[Message]]:
        """Empty both queues; returns (steering, follow-ups) so a UI can restore them."""
        return self.clear_steering_queue(), self.clear_follow_up_queue()

    def _dequeue(self, queue: list[Message], mode: QueueMode) -> list[Message]:
        if not queue:
            return []
        if mode == "all":
            taken = list(queue)
            queue.clear()
            return taken
        return [queue.pop(0)]

    def _drain_steering(self) -> list[Message]:
        if self._external_steering is not None:
            return list(self._external_steering())
        return self._dequeue(self.state.steering_queue, self.steering_mode)

    def _drain_follow_ups(self) -> list[Message]:
        if self._external_follow_ups is not None:
            return list(self._external_follow_ups())
        return self._dequeue(self.state.follow_up_queue, self.follow_up_mode)

    # ------------------------------------------------------------------ runs

    async def prompt(
        self, item: str | Message | list[Message], images: list[ImageContent] | None = None
    ) -> None:
        """Run the loop on a new prompt; returns when the run has ended."""
        if self.state.is_streaming:
            raise AgentBusyError(
                "Agent is already processing a prompt. Use steer() or follow_up() to queue "
                "messages, or wait for the run to finish."
            )
        if isinstance(item, list):
            prompts = list(item)
        elif isinstance(item, str):
            prompts = [user_message(item, images)]
        else:
            prompts = [item]
        context = self._context()
        await self._run(
            lambda signal: run_agent_loop(prompts, context, self._config(), self._emit, signal)
        )

    async def continue_(self) -> None:
        """Continue from the current messages (e.g. after an error or to deliver queued ones)."""
        if self.state.is_streaming:
            raise AgentBusyError(
                "Agent is already processing. Wait for it to finish before continuing."
            )
        messages = self.state.messages
        if not messages:
            raise ValueError("No messages to continue from")
        if isinstance(messages[-1], AssistantMessage):
            steering = self._drain_steering()
            queued = steering or self._drain_follow_ups()
            if not queued:
                raise ValueError("Cannot continue from message role: assistant")
            context = self._context()
            await self._run(
                lambda signal: run_agent_loop(
                    queued,
                    context,
                    self._config(),
                    self._emit,
                    signal,
                    skip_initial_steering=bool(steering),
                )
            )
            return
        context = self._context()
        await self._run(
            lambda signal: run_agent_loop_continue(context, self._config(), self._emit, signal)
        )

    def abort(self) -> None:
        """Abort the live run: cancels the model stream and running tools."""
        if self._signal is not None:
            self._signal.abort()

    async def wait_for_idle(self) -> None:
        """Wait until no run is live."""
        await self._idle.wait()

    def replace_messages(self, messages: list[Message]) -> None:
        """Replace the conversation (session resume, compaction, branching)."""
        self.state.messages = [freeze(message) for message in messages]

    def reset(self) -> None:
        """Forget the conversation and both queues."""
        self.state.messages = []
        self.clear_queues()
        self.state.error = None

    def _context(self) -> AgentContext:
        return AgentContext(
            system_prompt=self.system_prompt, messages=self.state.messages, tools=self.tools
        )

    def _config(self) -> AgentLoopConfig:
        middleware = self.stream_middleware
        return AgentLoopConfig(
            stream_fn=middleware(self.stream_fn) if middleware is not None else self.stream_fn,
            model=self.model,
            api=self.api,
            provider=self.provider,
            model_name=self.model_name,
            thinking=self.thinking,
            max_tokens=self.max_tokens,
            tool_execution=self.tool_execution,
            get_steering_messages=self._drain_steering,
            get_follow_up_messages=self._drain_follow_ups,
            before_tool_call=self.before_tool_call,
            after_tool_call=self.after_tool_call,
            transform_context=self.transform_context,
            on_retry=self.on_retry,
            on_retry_end=self.on_retry_end,
            should_stop=self.should_stop,
        )

    async def _run(
        self, start: Callable[[AbortSignal], Coroutine[Any, Any, list[Message]]]
    ) -> None:
        signal = AbortSignal()
        self._signal = signal
        self.state.is_streaming = True
        self.state.error = None
        self._idle.clear()
        first_new = len(self.state.messages)  # what this run adds, for agent_end after a crash
        task = asyncio.ensure_future(start(signal))
        try:
            # Shielded: if whoever awaits us is cancelled (a UI worker), abort so the loop
            # still ends cleanly (aborted message, turn_end, agent_end), then propagate.
            await asyncio.shield(task)
        except asyncio.CancelledError:
            signal.abort("cancelled")
            try:
                await task
            except Exception:
                log.exception("agent loop failed while aborting")
            raise
        except Exception as exc:  # a bug, not a model failure: report it, stay usable
            log.exception("agent loop failed")
            self.state.error = f"{type(exc).__name__}: {exc}"
            self._emit(
                AgentEnd(
                    messages=list(self.state.messages[first_new:]), error_message=self.state.error
                )
            )
        finally:
            self.state.is_streaming = False
            self.state.stream_message = None
            self._signal = None
            self._idle.set()

    @property
    def signal(self) -> AbortSignal | None:
        """The live run's abort signal, if a run is live."""
        return self._signal


__all__ = ["Agent", "AgentBusyError", "AgentState", "QueueMode", "UserMessage"]
