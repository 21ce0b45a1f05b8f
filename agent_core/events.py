"""The agent event protocol (SPEC §4): the only contract between the loop and any front end."""

from __future__ import annotations

from typing import Any, ClassVar

from agent_core.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResult,
    ToolResultMessage,
    _text_content,
)
from agent_core.records import Record, convert, field

# ---------------------------------------------------------------------------- assistant stream


class TextStart(Record, tag_field="type", tag="text_start"):
    """A text block begins at ``content_index``."""

    type: ClassVar[str] = "text_start"
    content_index: int


class TextDelta(Record, tag_field="type", tag="text_delta"):
    """A piece of text for the block at ``content_index``."""

    type: ClassVar[str] = "text_delta"
    content_index: int
    delta: str


class TextEnd(Record, tag_field="type", tag="text_end"):
    """The text block at ``content_index`` is complete; ``content`` is its full text."""

    type: ClassVar[str] = "text_end"
    content_index: int
    content: str


class ThinkingStart(Record, tag_field="type", tag="thinking_start"):
    """A thinking block begins."""

    type: ClassVar[str] = "thinking_start"
    content_index: int


class ThinkingDelta(Record, tag_field="type", tag="thinking_delta"):
    """A piece of thinking text."""

    type: ClassVar[str] = "thinking_delta"
    content_index: int
    delta: str


class ThinkingEnd(Record, tag_field="type", tag="thinking_end"):
    """A thinking block is complete (``signature`` as sent by Anthropic, if any)."""

    type: ClassVar[str] = "thinking_end"
    content_index: int
    content: str
    signature: str | None = None


class ToolCallStart(Record, tag_field="type", tag="toolcall_start"):
    """A tool call begins; id and name are known, arguments follow as JSON pieces.

    ``original_id`` is the provider's id when ``id`` had to replace it (missing or repeated).
    """

    type: ClassVar[str] = "toolcall_start"
    content_index: int
    id: str
    name: str
    original_id: str | None = None


class ToolCallDelta(Record, tag_field="type", tag="toolcall_delta"):
    """A raw piece of the tool call's argument JSON."""

    type: ClassVar[str] = "toolcall_delta"
    content_index: int
    delta: str


class ToolCallEnd(Record, tag_field="type", tag="toolcall_end"):
    """The tool call is complete, arguments parsed (or ``raw_arguments`` kept when invalid)."""

    type: ClassVar[str] = "toolcall_end"
    content_index: int
    tool_call: ToolCall


AssistantStreamEvent = (
    TextStart
    | TextDelta
    | TextEnd
    | ThinkingStart
    | ThinkingDelta
    | ThinkingEnd
    | ToolCallStart
    | ToolCallDelta
    | ToolCallEnd
)

# ---------------------------------------------------------------------------- agent events


class AgentStart(Record, tag_field="type", tag="agent_start"):
    """A run begins."""

    type: ClassVar[str] = "agent_start"


class AgentEnd(Record, tag_field="type", tag="agent_end"):
    """A run ended; ``messages`` are all messages added during it, in order.

    ``error_message`` is set when the loop itself failed (a bug, not a model error: those end
    the assistant message with ``stop_reason`` ``error``), so front ends learn it from the event.
    """

    type: ClassVar[str] = "agent_end"
    messages: list[Message] = field(default_factory=list)
    error_message: str | None = None


class TurnStart(Record, tag_field="type", tag="turn_start"):
    """A turn (one model response plus its tool calls) begins."""

    type: ClassVar[str] = "turn_start"


class TurnEnd(Record, tag_field="type", tag="turn_end"):
    """A turn ended: its assistant message and the tool results (empty on the last turn)."""

    type: ClassVar[str] = "turn_end"
    message: AssistantMessage
    tool_results: list[ToolResultMessage] = field(default_factory=list)


class MessageStart(Record, tag_field="type", tag="message_start"):
    """A message begins (user and tool results arrive whole; assistant messages stream)."""

    type: ClassVar[str] = "message_start"
    message: Message


class MessageUpdate(Record, tag_field="type", tag="message_update", kw_only=True):
    """The assistant message grew by one stream event.

    ``message`` is the partial message so far (a live object: copy it to keep a snapshot).
    Serializers that must stay linear in size (JSON mode) drop it and keep the delta event.
    """

    type: ClassVar[str] = "message_update"
    message: AssistantMessage | None = None
    assistant_message_event: AssistantStreamEvent


class MessageEnd(Record, tag_field="type", tag="message_end"):
    """A message is final."""

    type: ClassVar[str] = "message_end"
    message: Message


class ToolExecutionStart(Record, tag_field="type", tag="tool_execution_start"):
    """A tool call starts executing (or is about to be answered with an error)."""

    type: ClassVar[str] = "tool_execution_start"
    tool_call_id: str
    tool_name: str
    args: Any = None


class ToolExecutionUpdate(Record, tag_field="type", tag="tool_execution_update", kw_only=True):
    """Streaming progress of a running tool (accumulated, not a delta)."""

    type: ClassVar[str] = "tool_execution_update"
    tool_call_id: str
    tool_name: str
    args: Any = None
    partial_result: ToolResult


class ToolExecutionEnd(Record, tag_field="type", tag="tool_execution_end"):
    """A tool call finished."""

    type: ClassVar[str] = "tool_execution_end"
    tool_call_id: str
    tool_name: str
    result: ToolResult
    is_error: bool = False


AgentEvent = (
    AgentStart
    | AgentEnd
    | TurnStart
    | TurnEnd
    | MessageStart
    | MessageUpdate
    | MessageEnd
    | ToolExecutionStart
    | ToolExecutionUpdate
    | ToolExecutionEnd
)


def event_from_wire(data: dict[str, Any]) -> AgentEvent:
    """Parse an :data:`AgentEvent` from its wire dict, validated (``RecordError`` says why)."""
    if isinstance(data, dict) and isinstance(data.get("message"), dict):
        data = {**data, "message": _text_content(data["message"])}
    return convert(data, AgentEvent)


def stream_event_from_wire(data: dict[str, Any]) -> AssistantStreamEvent:
    """Parse an :data:`AssistantStreamEvent` from its wire dict, validated."""
    return convert(data, AssistantStreamEvent)
