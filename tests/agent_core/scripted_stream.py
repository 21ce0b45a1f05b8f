"""A scripted ``StreamFn`` for agent_core tests: replays canned assistant responses.

Build responses with :func:`reply` and the block helpers (:func:`text`, :func:`thinking`,
:func:`tool_call`, :func:`raw_tool_call`), hand them to :class:`ScriptedStream`, and pass the
stream to an ``Agent`` or ``AgentLoopConfig``. The stream records the :class:`LlmContext` and
options of every call (``stream.contexts``), honours ``options.cancel`` and can hang until
cancelled (``reply(..., hang=True)``; ``await stream.hanging.wait()`` to know it got there).

:class:`Recorder` subscribes to an agent (or serves as the loop's ``emit``) and snapshots every
event's wire form at emission time, since assistant partial messages are live objects.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from agent_core import (
    AssistantMessage,
    AssistantMessageBuilder,
    LlmContext,
    StreamOptions,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallDelta,
    ToolCallStart,
    Usage,
    to_wire,
)
from agent_core.messages import StopReason

# ---------------------------------------------------------------------------- script model


@dataclass
class TextBlock:
    """A text block streamed as ``chunks``."""

    chunks: list[str]


@dataclass
class ThinkingBlock:
    """A thinking block streamed as ``chunks``."""

    chunks: list[str]
    signature: str | None = None


@dataclass
class ToolCallBlock:
    """A tool call whose raw argument JSON is streamed as ``chunks`` (possibly invalid JSON)."""

    id: str
    name: str
    chunks: list[str]


Block = TextBlock | ThinkingBlock | ToolCallBlock


@dataclass
class Response:
    """One scripted model response.

    Attributes:
        blocks: content blocks, streamed in order.
        stop_reason: final stop reason; default ``toolUse`` if there is a tool call else ``stop``.
        error: if set, the final message has stop_reason ``error`` and this error_message.
        delay: seconds to sleep before each stream event.
        hang: after ``hang_after`` events (default: all), wait until cancelled.
        hang_after: number of stream events to emit before hanging.
        raise_exc: raise this after the blocks (breaks the StreamFn contract on purpose).
        no_final: end the iterator without a final message (breaks the contract on purpose).
        usage: usage attached to the final message.
    """

    blocks: list[Block] = field(default_factory=list)
    stop_reason: StopReason | None = None
    error: str | None = None
    delay: float = 0.0
    hang: bool = False
    hang_after: int | None = None
    raise_exc: BaseException | None = None
    no_final: bool = False
    usage: Usage | None = None


def text(*chunks: str) -> TextBlock:
    """A text block streamed as the given chunks."""
    return TextBlock(list(chunks))


def thinking(*chunks: str, signature: str | None = None) -> ThinkingBlock:
    """A thinking block streamed as the given chunks."""
    return ThinkingBlock(list(chunks), signature)


def tool_call(
    call_id: str, name: str, arguments: dict[str, Any] | None = None, split: int = 1
) -> ToolCallBlock:
    """A tool call whose argument JSON is split into ``split`` roughly equal chunks."""
    raw = json.dumps(arguments or {})
    size = max(1, -(-len(raw) // max(1, split)))
    return ToolCallBlock(call_id, name, [raw[i : i + size] for i in range(0, len(raw), size)])


def raw_tool_call(call_id: str, name: str, *chunks: str) -> ToolCallBlock:
    """A tool call with literal raw argument chunks (use for invalid JSON)."""
    return ToolCallBlock(call_id, name, list(chunks))


def reply(*blocks: Block, **kwargs: Any) -> Response:
    """A :class:`Response` with the given blocks and options."""
    return Response(blocks=list(blocks), **kwargs)


# ---------------------------------------------------------------------------- the StreamFn


class ScriptedStream:
    """A ``StreamFn`` that replays :class:`Response` objects in order.

    When the script is exhausted it answers with an ``error`` message (``exhausted`` is set),
    so a test that expected fewer model calls fails visibly instead of hanging.
    """

    def __init__(self, *responses: Response, model: str = "scripted-model") -> None:
        self.responses = list(responses)
        self.model = model
        self.contexts: list[LlmContext] = []
        self.options: list[StreamOptions] = []
        self.hanging = asyncio.Event()
        self.exhausted = False
        self.cancelled_seen = 0
        self.on_call: Callable[[int, LlmContext], None] | None = None

    @property
    def calls(self) -> int:
        """How many times the model was called."""
        return len(self.contexts)

    def user_texts(self, call: int) -> list[str]:
        """The text of every user message the model saw on call number ``call`` (0-based)."""
        return [
            "".join(getattr(b, "text", "") for b in m.content)
            for m in self.contexts[call].messages
            if m.role == "user"
        ]

    def roles(self, call: int) -> list[str]:
        """The role of every message the model saw on call number ``call``."""
        return [m.role for m in self.contexts[call].messages]

    def __call__(self, context: LlmContext, options: StreamOptions) -> AsyncIterator[Any]:
        # Snapshot: the loop's message list keeps growing after this call.
        self.contexts.append(
            LlmContext(
                system_prompt=context.system_prompt,
                messages=list(context.messages),
                tools=list(context.tools),
            )
        )
        self.options.append(options)
        if self.on_call is not None:
            self.on_call(len(self.contexts) - 1, self.contexts[-1])
        if not self.responses:
            self.exhausted = True
            return self._run(reply(error="ScriptedStream: no scripted response left"), options)
        return self._run(self.responses.pop(0), options)

    async def _run(self, response: Response, options: StreamOptions) -> AsyncIterator[Any]:
        builder = AssistantMessageBuilder(api="scripted", provider="scripted", model=self.model)
        cancel = options.cancel
        emitted = 0
        has_tool_call = False

        async def gate() -> bool:
            """Delay / hang before the next event; False when cancelled."""
            nonlocal emitted
            if response.hang and response.hang_after is not None and emitted >= response.hang_after:
                await self._hang(options)
            if response.delay:
                await asyncio.sleep(response.delay)
            emitted += 1
            return not cancel.aborted

        for index, block in enumerate(response.blocks):
            if isinstance(block, TextBlock):
                events: list[Any] = [TextStart(content_index=index)]
                events += [TextDelta(content_index=index, delta=c) for c in block.chunks]
                events.append(TextEnd(content_index=index, content="".join(block.chunks)))
            elif isinstance(block, ThinkingBlock):
                events = [ThinkingStart(content_index=index)]
                events += [ThinkingDelta(content_index=index, delta=c) for c in block.chunks]
                events.append(
                    ThinkingEnd(
                        content_index=index,
                        content="".join(block.chunks),
                        signature=block.signature,
                    )
                )
            else:
                has_tool_call = True
                events = [ToolCallStart(content_index=index, id=block.id, name=block.name)]
                events += [ToolCallDelta(content_index=index, delta=c) for c in block.chunks]
                events.append(None)  # placeholder: toolcall_end built from the raw JSON
            for event in events:
                if not await gate():
                    self.cancelled_seen += 1
                    yield builder.finish("aborted", error_message="Request was aborted")
                    return
                if event is None:
                    yield builder.finish_tool_call(index)
                else:
                    builder.apply(event)
                    yield event

        if response.hang:
            await self._hang(options)
            self.cancelled_seen += 1
            yield builder.finish("aborted", error_message="Request was aborted")
            return
        if response.raise_exc is not None:
            raise response.raise_exc
        if response.no_final:
            return
        if response.error is not None:
            yield builder.finish("error", error_message=response.error, usage=response.usage)
            return
        stop = response.stop_reason or ("toolUse" if has_tool_call else "stop")
        yield builder.finish(stop, usage=response.usage)

    async def _hang(self, options: StreamOptions) -> None:
        """Signal ``hanging`` and wait until the call is cancelled."""
        self.hanging.set()
        await options.cancel.wait()


# ---------------------------------------------------------------------------- event recorder


class Recorder:
    """Collects events; ``wire`` holds each event's JSON form taken at emission time."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.wire: list[dict[str, Any]] = []
        self.waiters: list[tuple[Callable[[Any], bool], asyncio.Future[Any]]] = []

    def __call__(self, event: Any) -> None:
        self.events.append(event)
        self.wire.append(to_wire(event))
        for predicate, future in list(self.waiters):
            if not future.done() and predicate(event):
                future.set_result(event)
                self.waiters.remove((predicate, future))

    def wait_for(self, predicate: Callable[[Any], bool]) -> asyncio.Future[Any]:
        """A future resolved by the first *later* event matching ``predicate``."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiters.append((predicate, future))
        return future

    def types(self) -> list[str]:
        """Event types; message events carry the role (``message_start:user``)."""
        out = []
        for wire in self.wire:
            name = wire["type"]
            if name in ("message_start", "message_end"):
                name += ":" + wire["message"]["role"]
            out.append(name)
        return out

    def of_type(self, name: str) -> list[Any]:
        """Every recorded event of type ``name``."""
        return [e for e in self.events if e.type == name]


def final_assistant(messages: list[Any]) -> AssistantMessage:
    """The last assistant message of a list."""
    return next(m for m in reversed(messages) if isinstance(m, AssistantMessage))
