"""Message and content-block models shared by the loop, providers, tools and every front end.

Python attributes are snake_case; the JSON wire shape (JSON mode, RPC, session files) uses the
camelCase names of the article and of pi (``toolCallId``, ``stopReason``, ``isError``...).
Use :func:`to_wire` / :func:`message_from_wire` for a lossless round trip.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self, TypeVar

from msgspec.structs import force_setattr

from agent_core._frozen import Freezable, FrozenList, frozen_value, is_frozen, mark_frozen
from agent_core.records import Record, RecordError, convert, field, wire_dict


def now_ms() -> int:
    """Current wall-clock time in milliseconds (the timestamp unit of every message)."""
    return int(time.time() * 1000)


WireModel = Record
"""The base of every wire type (the name the shell's events and extensions know)."""


# ---------------------------------------------------------------------------- content blocks


class TextContent(Freezable, Record, tag_field="type", tag="text"):
    """A block of plain text."""

    type: ClassVar[str] = "text"
    text: str


class ImageContent(Freezable, Record, tag_field="type", tag="image"):
    """A base64-encoded image."""

    type: ClassVar[str] = "image"
    data: str
    mime_type: str


class ThinkingContent(Freezable, Record, tag_field="type", tag="thinking"):
    """Model reasoning. ``signature`` carries Anthropic's thinking signature for replay."""

    type: ClassVar[str] = "thinking"
    thinking: str
    signature: str | None = None
    redacted: bool = False


class ToolCall(Freezable, Record, tag_field="type", tag="toolCall"):
    """A tool call requested by the model.

    ``raw_arguments`` is set only when the model's argument JSON could not be parsed; the loop
    then answers the call with an error result instead of running the tool.

    ``id`` is unique within its message: a provider that sent no id, or the same id twice in
    one response, gets a fresh one, and ``original_id`` keeps what the provider sent.
    """

    type: ClassVar[str] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    raw_arguments: str | None = None
    original_id: str | None = None


UserContent = TextContent | ImageContent
AssistantContent = TextContent | ThinkingContent | ToolCall
ToolResultContent = TextContent | ImageContent


# ---------------------------------------------------------------------------- usage


class Cost(Record):
    """Cost in US dollars, split like the token counts."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0


class Usage(Record):
    """Token usage reported by the provider for one response."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: Cost = field(default_factory=Cost)


StopReason = Literal["stop", "length", "toolUse", "error", "aborted", "refusal"]
"""Why a response ended: ``length`` = cut at the output token limit; ``refusal`` = the model or
the provider's safety system declined (``AssistantMessage.refusal`` says why, when known)."""


# ---------------------------------------------------------------------------- messages


def _text_content(data: Any) -> Any:
    """Wire data whose ``content`` is a plain string (pi's user and tool-result messages may
    carry one) with that string as one text block."""
    if isinstance(data, dict) and isinstance(data.get("content"), str):
        return {**data, "content": [{"type": "text", "text": data["content"]}]}
    return data


class _TextContentOnWire(Record):
    """A record whose wire ``content`` may be a plain string (one text block)."""

    if TYPE_CHECKING:  # each subclass declares it, in its place in the wire order
        content: list[Any]

    def __post_init__(self) -> None:
        if isinstance(self.content, str):  # as pi's own code and extensions may build one
            force_setattr(self, "content", [TextContent(text=self.content)])

    @classmethod
    def model_validate(cls, data: Any) -> Self:
        """The record from wire data (see :meth:`Record.model_validate`)."""
        return super().model_validate(_text_content(data))


class UserMessage(Freezable, _TextContentOnWire, tag_field="role", tag="user"):
    """A message from the user (typed, steered, queued as follow-up, or injected by the shell)."""

    role: ClassVar[str] = "user"
    content: list[UserContent]
    timestamp: int = field(default_factory=now_ms)

    @property
    def text(self) -> str:
        """All text blocks joined."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))


class AssistantMessage(Freezable, Record, tag_field="role", tag="assistant"):
    """One model response: text, thinking and tool-call blocks plus stop reason and usage.

    ``refusal`` is set with ``stop_reason`` ``refusal``: the refusal as the provider worded it
    (OpenAI's ``refusal`` text, Anthropic's ``stop_details`` explanation or category, a content
    filter's categories); ``None`` when the provider gave no reason.
    """

    role: ClassVar[str] = "assistant"
    content: list[AssistantContent] = field(default_factory=list)
    api: str = ""
    provider: str = ""
    model: str = ""
    usage: Usage = field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    refusal: str | None = None
    timestamp: int = field(default_factory=now_ms)

    @property
    def text(self) -> str:
        """All text blocks joined (the visible answer)."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool-call blocks, in the model's order."""
        return [b for b in self.content if isinstance(b, ToolCall)]


class ToolResultMessage(
    Freezable, _TextContentOnWire, tag_field="role", tag="toolResult", kw_only=True
):
    """The result of one tool call, always fed back to the model (errors included)."""

    role: ClassVar[str] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[ToolResultContent] = field(default_factory=list)
    details: Any = None
    is_error: bool = False
    timestamp: int = field(default_factory=now_ms)

    @property
    def text(self) -> str:
        """All text blocks joined."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))


Message = UserMessage | AssistantMessage | ToolResultMessage


class ToolResult(_TextContentOnWire):
    """What a tool returns: content for the model, details for the UI, and a terminate flag."""

    content: list[ToolResultContent] = field(default_factory=list)
    details: Any = None
    terminate: bool = False

    @classmethod
    def of_text(cls, text: str, details: Any = None, terminate: bool = False) -> ToolResult:
        """A result holding one text block."""
        return cls(content=[TextContent(text=text)], details=details, terminate=terminate)

    @property
    def text(self) -> str:
        """All text blocks joined."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))


# ---------------------------------------------------------------------------- freezing

AnyMessage = TypeVar("AnyMessage", bound=UserMessage | AssistantMessage | ToolResultMessage)


def freeze(message: AnyMessage) -> AnyMessage:
    """Make a finished message immutable (see :mod:`agent_core._frozen`); returns it.

    Its attributes, its content blocks' attributes, its content list and a tool call's
    arguments can no longer change in place (a change raises ``FrozenMessageError``), so the
    providers may cache what they make of it. Idempotent.
    """
    if is_frozen(message):
        return message
    for block in message.content:
        if isinstance(block, ToolCall) and not is_frozen(block):
            force_setattr(block, "arguments", frozen_value(block.arguments))
        mark_frozen(block)
    force_setattr(message, "content", FrozenList(message.content))
    mark_frozen(message)
    return message


# ---------------------------------------------------------------------------- wire helpers


def to_wire(record: Record) -> dict[str, Any]:
    """The camelCase JSON-ready dict of any message, event or block (``None`` fields dropped)."""
    return wire_dict(record)


def message_from_wire(data: dict[str, Any]) -> UserMessage | AssistantMessage | ToolResultMessage:
    """Parse a message from its wire dict (camelCase keys), validated: :class:`RecordError`
    names what is wrong. A user or tool-result message's plain-string ``content`` is one text
    block."""
    if not isinstance(data, dict):
        raise RecordError(f"Expected `object`, got `{type(data).__name__}`")
    return convert(_text_content(data), Message)


def user_message(text: str, images: list[ImageContent] | None = None) -> UserMessage:
    """Build a user message from text and optional images."""
    blocks: list[Any] = [TextContent(text=text)]
    blocks.extend(images or [])
    return UserMessage(content=blocks)
