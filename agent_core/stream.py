"""The model-stream contract (``StreamFn``) and the accumulator that builds assistant messages.

A ``StreamFn`` is called with an :class:`LlmContext` and :class:`StreamOptions` and returns an
async iterator of assistant-stream events that ends with the final :class:`AssistantMessage`.
It never raises for request or model failures: it ends with a message whose ``stop_reason`` is
``error`` or ``aborted`` and whose ``error_message`` says why.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_core.abort import AbortSignal
from agent_core.events import (
    AssistantStreamEvent,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from agent_core.messages import (
    AssistantContent,
    AssistantMessage,
    Message,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
)


@dataclass
class ToolSpec:
    """What the model sees of a tool."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass
class LlmContext:
    """Everything a model call needs besides options."""

    system_prompt: str
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)


@dataclass
class RetryNotice:
    """A transient failure is being retried (``attempt`` starts at 1)."""

    attempt: int
    max_attempts: int
    delay_s: float
    error_message: str


OnRetry = Callable[[RetryNotice], None]
"""Called before each wait for a retry. Must not raise."""

OnRetryEnd = Callable[[bool, int, str | None], None]
"""Called once a retried call ends: (succeeded, attempts made, final error or None)."""


@dataclass
class StreamOptions:
    """Per-call options. ``on_retry`` lets the shell surface automatic retries as events."""

    model: str
    cancel: AbortSignal
    thinking: str = "off"
    max_tokens: int | None = None
    temperature: float | None = None
    on_retry: OnRetry | None = None
    on_retry_end: OnRetryEnd | None = None


StreamItem = AssistantStreamEvent | AssistantMessage
"""What a stream yields: events, then exactly one final :class:`AssistantMessage`."""


class StreamFn(Protocol):
    """Reach a model: yields assistant-stream events, then the final assistant message."""

    def __call__(
        self, context: LlmContext, options: StreamOptions
    ) -> AsyncIterator[StreamItem]: ...


def parse_tool_arguments(raw: str) -> tuple[dict[str, Any], str | None]:
    """Parse a tool call's argument JSON. Returns (arguments, raw text if it was invalid).

    An object encoded twice (a JSON string holding the object, as some models send) is unwrapped.
    """
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
        if isinstance(value, str) and value.lstrip().startswith("{"):
            value = json.loads(value)
    except (json.JSONDecodeError, RecursionError):
        return {}, raw
    if not isinstance(value, dict):
        return {}, raw
    return value, None


class AssistantMessageBuilder:
    """Builds an assistant message from stream events.

    Providers use it to emit events and produce the final message; the loop uses the same
    mechanism to keep the partial message shown to front ends. ``apply`` is idempotent with
    respect to the event order produced by providers.
    """

    def __init__(self, *, api: str = "", provider: str = "", model: str = "") -> None:
        self.message = AssistantMessage(api=api, provider=provider, model=model)
        self._raw_args: dict[int, str] = {}

    def apply(self, event: AssistantStreamEvent) -> None:
        """Fold one stream event into the message."""
        content = self.message.content
        if isinstance(event, TextDelta | ThinkingDelta):  # the hot path: one per chunk
            index = event.content_index
            if index < len(content):  # what _ensure returns, without building its default
                block = content[index]
            else:
                default: AssistantContent = (
                    TextContent(text="")
                    if isinstance(event, TextDelta)
                    else ThinkingContent(thinking="")
                )
                block = self._ensure(index, default)
            if isinstance(event, TextDelta):
                if isinstance(block, TextContent):
                    block.text += event.delta
            elif isinstance(block, ThinkingContent):
                block.thinking += event.delta
        else:
            self._apply_boundary(event)

    def _apply_boundary(self, event: AssistantStreamEvent) -> None:
        """A block's start or end, or a tool call's argument piece (not the per-chunk path)."""
        content = self.message.content
        if isinstance(event, TextStart):
            self._ensure(event.content_index, TextContent(text=""))
        elif isinstance(event, TextEnd):
            content[self._index(event.content_index)] = TextContent(text=event.content)
        elif isinstance(event, ThinkingStart):
            self._ensure(event.content_index, ThinkingContent(thinking=""))
        elif isinstance(event, ThinkingEnd):
            content[self._index(event.content_index)] = ThinkingContent(
                thinking=event.content, signature=event.signature
            )
        elif isinstance(event, ToolCallStart):
            call = ToolCall(id=event.id, name=event.name, original_id=event.original_id)
            self._ensure(event.content_index, call)
            self._raw_args[event.content_index] = ""
        elif isinstance(event, ToolCallDelta):
            self._raw_args[event.content_index] = (
                self._raw_args.get(event.content_index, "") + event.delta
            )
        elif isinstance(event, ToolCallEnd):
            content[self._index(event.content_index)] = event.tool_call

    def raw_arguments(self, content_index: int) -> str:
        """The argument JSON received so far for the tool call at ``content_index``."""
        return self._raw_args.get(content_index, "")

    def finish_tool_call(self, content_index: int) -> ToolCallEnd:
        """Parse the collected argument JSON and return the ``toolcall_end`` event (applied)."""
        block = self.message.content[content_index]
        assert isinstance(block, ToolCall)
        arguments, invalid = parse_tool_arguments(self._raw_args.get(content_index, ""))
        call = ToolCall(
            id=block.id,
            name=block.name,
            arguments=arguments,
            raw_arguments=invalid,
            original_id=block.original_id,
        )
        end = ToolCallEnd(content_index=content_index, tool_call=call)
        self.apply(end)
        return end

    def finish(
        self,
        stop_reason: StopReason,
        *,
        usage: Usage | None = None,
        error_message: str | None = None,
        refusal: str | None = None,
    ) -> AssistantMessage:
        """Return a copy of the message as final."""
        final = self.message.model_copy(deep=True)
        final.stop_reason = stop_reason
        final.error_message = error_message
        final.refusal = refusal
        if usage is not None:
            final.usage = usage
        return final

    def _index(self, content_index: int) -> int:
        self._ensure(content_index, TextContent(text=""))
        return content_index

    def _ensure(self, content_index: int, default: AssistantContent) -> AssistantContent:
        content = self.message.content
        while len(content) <= content_index:
            content.append(default.model_copy())
        return content[content_index]
