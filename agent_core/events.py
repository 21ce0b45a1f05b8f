"""The agent event protocol (SPEC §4): the only contract between the loop and any front end."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter

from agent_core.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResult,
    ToolResultMessage,
    WireModel,
)

# ---------------------------------------------------------------------------- assistant stream


class TextStart(WireModel):
    """A text block begins at ``content_index``."""

    type: Literal["text_start"] = "text_start"
    content_index: int


class TextDelta(WireModel):
    """A piece of text for the block at ``content_index``."""

    type: Literal["text_delta"] = "text_delta"
    content_index: int
    delta: str


class TextEnd(WireModel):
    """The text block at ``content_index`` is complete; ``content`` is its full text."""

    type: Literal["text_end"] = "text_end"
    content_index: int
    content: str


class ThinkingStart(WireModel):
    """A thinking block begins."""

    type: Literal["thinking_start"] = "thinking_start"
    content_index: int


class ThinkingDelta(WireModel):
    """A piece of thinking text."""

    type: Literal["thinking_delta"] = "thinking_delta"
    content_index: int
    delta: str


class ThinkingEnd(WireModel):
    """A thinking block is complete (``signature`` as sent by Anthropic, if any)."""

    type: Literal["thinking_end"] = "thinking_end"
    content_index: int
    content: str
    signature: str | None = None


class ToolCallStart(WireModel):
    """A tool call begins; id and name are known, arguments follow as JSON pieces.

    ``original_id`` is the provider's id when ``id`` had to replace it (missing or repeated).
    """

    type: Literal["toolcall_start"] = "toolcall_start"
    content_index: int
    id: str
    name: str
    original_id: str | None = None


class ToolCallDelta(WireModel):
    """A raw piece of the tool call's argument JSON."""

    type: Literal["toolcall_delta"] = "toolcall_delta"
    content_index: int
    delta: str


class ToolCallEnd(WireModel):
    """The tool call is complete, arguments parsed (or ``raw_arguments`` kept when invalid)."""

    type: Literal["toolcall_end"] = "toolcall_end"
    content_index: int
    tool_call: ToolCall


AssistantStreamEvent = Annotated[
    TextStart
    | TextDelta
    | TextEnd
    | ThinkingStart
    | ThinkingDelta
    | ThinkingEnd
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd,
    Field(discriminator="type"),
]

# ---------------------------------------------------------------------------- agent events


class AgentStart(WireModel):
    """A run begins."""

    type: Literal["agent_start"] = "agent_start"


class AgentEnd(WireModel):
    """A run ended; ``messages`` are all messages added during it, in order.

    ``error_message`` is set when the loop itself failed (a bug, not a model error: those end
    the assistant message with ``stop_reason`` ``error``), so front ends learn it from the event.
    """

    type: Literal["agent_end"] = "agent_end"
    messages: list[Message] = Field(default_factory=list)
    error_message: str | None = None


class TurnStart(WireModel):
    """A turn (one model response plus its tool calls) begins."""

    type: Literal["turn_start"] = "turn_start"


class TurnEnd(WireModel):
    """A turn ended: its assistant message and the tool results (empty on the last turn)."""

    type: Literal["turn_end"] = "turn_end"
    message: AssistantMessage
    tool_results: list[ToolResultMessage] = Field(default_factory=list)


class MessageStart(WireModel):
    """A message begins (user and tool results arrive whole; assistant messages stream)."""

    type: Literal["message_start"] = "message_start"
    message: Message


class MessageUpdate(WireModel):
    """The assistant message grew by one stream event.

    ``message`` is the partial message so far (a live object: copy it to keep a snapshot).
    Serializers that must stay linear in size (JSON mode) drop it and keep the delta event.
    """

    type: Literal["message_update"] = "message_update"
    message: AssistantMessage | None = None
    assistant_message_event: AssistantStreamEvent


class MessageEnd(WireModel):
    """A message is final."""

    type: Literal["message_end"] = "message_end"
    message: Message


class ToolExecutionStart(WireModel):
    """A tool call starts executing (or is about to be answered with an error)."""

    type: Literal["tool_execution_start"] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    args: Any = None


class ToolExecutionUpdate(WireModel):
    """Streaming progress of a running tool (accumulated, not a delta)."""

    type: Literal["tool_execution_update"] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    args: Any = None
    partial_result: ToolResult


class ToolExecutionEnd(WireModel):
    """A tool call finished."""

    type: Literal["tool_execution_end"] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    result: ToolResult
    is_error: bool = False


AgentEvent = Annotated[
    AgentStart
    | AgentEnd
    | TurnStart
    | TurnEnd
    | MessageStart
    | MessageUpdate
    | MessageEnd
    | ToolExecutionStart
    | ToolExecutionUpdate
    | ToolExecutionEnd,
    Field(discriminator="type"),
]

_event_adapter: TypeAdapter[AgentEvent] | None = None
_stream_adapter: TypeAdapter[AssistantStreamEvent] | None = None


def event_from_wire(data: dict[str, Any]) -> AgentEvent:
    """Parse an :data:`AgentEvent` from its wire dict."""
    global _event_adapter
    if _event_adapter is None:
        _event_adapter = TypeAdapter(AgentEvent)
    return _event_adapter.validate_python(data)


def stream_event_from_wire(data: dict[str, Any]) -> AssistantStreamEvent:
    """Parse an :data:`AssistantStreamEvent` from its wire dict."""
    global _stream_adapter
    if _stream_adapter is None:
        _stream_adapter = TypeAdapter(AssistantStreamEvent)
    return _stream_adapter.validate_python(data)
