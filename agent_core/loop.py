"""The turn loop (SPEC §3): inner loop = turns, outer loop = follow-ups.

Pure asyncio. The model is reached only through ``config.stream_fn``; tools only through the
:class:`~agent_core.tool.Tool` protocol. Nothing here knows a provider, a tool or a UI.
"""

from __future__ import annotations

from agent_core.abort import Aborted, AbortSignal, run_abortable
from agent_core.context import AgentContext, AgentLoopConfig, Emit, MessageSource
from agent_core.events import (
    AgentEnd,
    AgentStart,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    TurnEnd,
    TurnStart,
)
from agent_core.messages import AssistantMessage, Message, freeze
from agent_core.stream import AssistantMessageBuilder, LlmContext, StreamOptions
from agent_core.tool_execution import execute_tool_calls

# Defined in agent_core.context (a leaf, so tool_execution needs no import of this module);
# re-exported here because this is where callers have always found them.
__all__ = [
    "AgentContext",
    "AgentLoopConfig",
    "Emit",
    "run_agent_loop",
    "run_agent_loop_continue",
    "run_loop",
    "stream_assistant_response",
]


def _drain(getter: MessageSource | None) -> list[Message]:
    return list(getter()) if getter is not None else []


def _stopped(config: AgentLoopConfig) -> bool:
    """Whether ``config.should_stop`` ends the run here (a raising check stops too: fail safe)."""
    if config.should_stop is None:
        return False
    try:
        return bool(config.should_stop())
    except Exception:  # noqa: BLE001 - a broken budget check must not run up costs
        return True


def _deliver(
    queued: list[Message], context: AgentContext, new_messages: list[Message], emit: Emit
) -> None:
    for message in queued:
        context.messages.append(freeze(message))
        new_messages.append(message)
        emit(MessageStart(message=message))
        emit(MessageEnd(message=message))


async def run_agent_loop(
    prompts: list[Message],
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Emit,
    signal: AbortSignal | None = None,
    *,
    skip_initial_steering: bool = False,
) -> list[Message]:
    """Start a run with new prompt messages. Returns every message added during the run.

    ``skip_initial_steering``: the prompts themselves were drained from the steering queue,
    so the loop must not drain it again before the first turn (one-at-a-time delivery).
    """
    signal = signal or AbortSignal()
    new_messages: list[Message] = list(prompts)
    emit(AgentStart())
    emit(TurnStart())
    for prompt in prompts:
        context.messages.append(freeze(prompt))
        emit(MessageStart(message=prompt))
        emit(MessageEnd(message=prompt))
    await run_loop(
        context, new_messages, config, emit, signal, skip_initial_steering=skip_initial_steering
    )
    return new_messages


async def run_agent_loop_continue(
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Emit,
    signal: AbortSignal | None = None,
) -> list[Message]:
    """Continue from the current context (its last message must be a user or tool result)."""
    if not context.messages:
        raise ValueError("Cannot continue: no messages in context")
    if isinstance(context.messages[-1], AssistantMessage):
        raise ValueError("Cannot continue from message role: assistant")
    signal = signal or AbortSignal()
    new_messages: list[Message] = []
    emit(AgentStart())
    emit(TurnStart())
    await run_loop(context, new_messages, config, emit, signal)
    return new_messages


async def run_loop(
    context: AgentContext,
    new_messages: list[Message],
    config: AgentLoopConfig,
    emit: Emit,
    signal: AbortSignal,
    *,
    skip_initial_steering: bool = False,
) -> None:
    """SPEC §3, line by line. ``turn_start`` of the first turn was emitted by the caller."""
    first_turn = True
    pending = [] if skip_initial_steering else _drain(config.get_steering_messages)
    while True:
        has_more_tool_calls = True
        while has_more_tool_calls or pending:
            if first_turn:
                first_turn = False
            else:
                emit(TurnStart())
            _deliver(pending, context, new_messages, emit)
            pending = []

            message = await stream_assistant_response(context, config, emit, signal)
            new_messages.append(message)
            if message.stop_reason in ("error", "aborted"):
                emit(TurnEnd(message=message, tool_results=[]))
                emit(AgentEnd(messages=new_messages))
                return

            # Trust the content, not the declared stop reason.
            tool_calls = message.tool_calls
            has_more_tool_calls = bool(tool_calls)
            results = []
            if tool_calls:
                batch = await execute_tool_calls(context, message, tool_calls, config, emit, signal)
                results = batch.results
                new_messages.extend(results)
                pending.extend(batch.steering)
                if batch.terminate:
                    has_more_tool_calls = False
            emit(TurnEnd(message=message, tool_results=results))
            if (has_more_tool_calls or pending) and _stopped(config):
                # A budget ends the run before the next model call. Steers the batch already
                # took join the history (so they are not lost); nothing more is drained.
                _deliver(pending, context, new_messages, emit)
                emit(AgentEnd(messages=new_messages))
                return
            # A steer drained mid-batch is this turn's delivery (one-at-a-time). After an abort
            # nothing more is consumed: queued messages stay for the user (like follow-ups).
            if not pending and not signal.aborted:
                pending = _drain(config.get_steering_messages)

        if signal.aborted or _stopped(config):
            break
        follow_ups = _drain(config.get_follow_up_messages)
        if follow_ups:
            pending = follow_ups
            continue
        break
    emit(AgentEnd(messages=new_messages))


async def stream_assistant_response(
    context: AgentContext,
    config: AgentLoopConfig,
    emit: Emit,
    signal: AbortSignal,
) -> AssistantMessage:
    """One model call: message_start, message_update per stream event, message_end.

    The stream runs in its own task so that an abort cancels it at once, whatever the
    provider does; the partial content received so far is kept in the aborted message.
    """
    builder = AssistantMessageBuilder(
        api=config.api, provider=config.provider, model=config.model_name or config.model
    )
    emit(MessageStart(message=builder.message))
    final: AssistantMessage | None = None
    if signal.aborted:
        final = builder.finish("aborted", error_message="Request was aborted")
    else:
        options = StreamOptions(
            model=config.model,
            cancel=signal,
            thinking=config.thinking,
            max_tokens=config.max_tokens,
            on_retry=config.on_retry,
            on_retry_end=config.on_retry_end,
        )

        async def consume() -> AssistantMessage | None:
            # Inside the guarded task: a failing transform_context ends the turn with an error
            # message (clean message_end/turn_end/agent_end), and an abort cancels it too.
            messages = context.messages
            if config.transform_context is not None:
                messages = await config.transform_context(list(messages), signal)
            llm_context = LlmContext(
                system_prompt=context.system_prompt,
                messages=list(messages),
                tools=context.tool_specs(),
            )
            stream = config.stream_fn(llm_context, options)
            try:
                async for item in stream:
                    if isinstance(item, AssistantMessage):
                        return item
                    builder.apply(item)
                    emit(MessageUpdate(message=builder.message, assistant_message_event=item))
            finally:
                # An async generator left early (final message, abort) runs its cleanup now,
                # not whenever it is garbage-collected. A plain AsyncIterator has no aclose.
                aclose = getattr(stream, "aclose", None)
                if aclose is not None:
                    await aclose()
            return None

        try:
            final = await run_abortable(consume(), signal)
        except Aborted:
            final = builder.finish("aborted", error_message="Request was aborted")
        except Exception as exc:  # noqa: BLE001 - the StreamFn broke its contract; never crash the loop
            final = builder.finish(
                "error", error_message=f"Model stream failed: {type(exc).__name__}: {exc}"
            )
        if final is None:
            final = builder.finish(
                "error", error_message="Model stream ended without a final message"
            )
    if not final.model:
        final.model = config.model
    context.messages.append(freeze(final))  # finished: its provider form may be cached
    emit(MessageEnd(message=final))
    return final
