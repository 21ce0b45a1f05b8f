"""Message and content-block models shared by the loop, providers, tools and every front end.

Python attributes are snake_case; the JSON wire shape (JSON mode, RPC, session files) uses the
camelCase names of the article and of pi (``toolCallId``, ``stopReason``, ``isError``...).
Use :func:`to_wire` / :func:`message_from_wire` for a lossless round trip.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal, TypeVar

from agent_core._frozen import Freezable, FrozenList, frozen_value, is_frozen, mark_frozen
from agent_core._pydantic_plugins import skip_discovery_without_plugins

skip_discovery_without_plugins()  # before the first model is built (~15 ms of start-up)

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator  # noqa: E402
from pydantic.alias_generators import to_camel  # noqa: E402


def now_ms() -> int:
    """Current wall-clock time in milliseconds (the timestamp unit of every message)."""
    return int(time.time() * 1000)


class WireModel(BaseModel):
    """Base model: snake_case in Python, camelCase on the wire."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        serialize_by_alias=True,
        extra="ignore",
        defer_build=True,
    )


# ---------------------------------------------------------------------------- content blocks


class TextContent(Freezable, WireModel):
    """A block of plain text."""

    type: Literal["text"] = "text"
    text: str


class ImageContent(Freezable, WireModel):
    """A base64-encoded image."""

    type: Literal["image"] = "image"
    data: str
    mime_type: str


class ThinkingContent(Freezable, WireModel):
    """Model reasoning. ``signature`` carries Anthropic's thinking signature for replay."""

    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str | None = None
    redacted: bool = False


class ToolCall(Freezable, WireModel):
    """A tool call requested by the model.

    ``raw_arguments`` is set only when the model's argument JSON could not be parsed; the loop
    then answers the call with an error result instead of running the tool.

    ``id`` is unique within its message: a provider that sent no id, or the same id twice in
    one response, gets a fresh one, and ``original_id`` keeps what the provider sent.
    """

    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = None
    original_id: str | None = None


UserContent = Annotated[TextContent | ImageContent, Field(discriminator="type")]
AssistantContent = Annotated[TextContent | ThinkingContent | ToolCall, Field(discriminator="type")]
ToolResultContent = Annotated[TextContent | ImageContent, Field(discriminator="type")]


# ---------------------------------------------------------------------------- usage


class Cost(WireModel):
    """Cost in US dollars, split like the token counts."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0


class Usage(WireModel):
    """Token usage reported by the provider for one response."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    cost: Cost = Field(default_factory=Cost)


StopReason = Literal["stop", "length", "toolUse", "error", "aborted", "refusal"]
"""Why a response ended: ``length`` = cut at the output token limit; ``refusal`` = the model or
the provider's safety system declined (``AssistantMessage.refusal`` says why, when known)."""


# ---------------------------------------------------------------------------- messages


def _coerce_text(value: Any) -> Any:
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    return value


class UserMessage(Freezable, WireModel):
    """A message from the user (typed, steered, queued as follow-up, or injected by the shell)."""

    role: Literal["user"] = "user"
    content: list[UserContent]
    timestamp: int = Field(default_factory=now_ms)

    _coerce = field_validator("content", mode="before")(classmethod(lambda cls, v: _coerce_text(v)))

    @property
    def text(self) -> str:
        """All text blocks joined."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))


class AssistantMessage(Freezable, WireModel):
    """One model response: text, thinking and tool-call blocks plus stop reason and usage.

    ``refusal`` is set with ``stop_reason`` ``refusal``: the refusal as the provider worded it
    (OpenAI's ``refusal`` text, Anthropic's ``stop_details`` explanation or category, a content
    filter's categories); ``None`` when the provider gave no reason.
    """

    role: Literal["assistant"] = "assistant"
    content: list[AssistantContent] = Field(default_factory=list)
    api: str = ""
    provider: str = ""
    model: str = ""
    usage: Usage = Field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    refusal: str | None = None
    timestamp: int = Field(default_factory=now_ms)

    @property
    def text(self) -> str:
        """All text blocks joined (the visible answer)."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))

    @property
    def tool_calls(self) -> list[ToolCall]:
        """The tool-call blocks, in the model's order."""
        return [b for b in self.content if isinstance(b, ToolCall)]


class ToolResultMessage(Freezable, WireModel):
    """The result of one tool call, always fed back to the model (errors included)."""

    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[ToolResultContent] = Field(default_factory=list)
    details: Any = None
    is_error: bool = False
    timestamp: int = Field(default_factory=now_ms)

    _coerce = field_validator("content", mode="before")(classmethod(lambda cls, v: _coerce_text(v)))

    @property
    def text(self) -> str:
        """All text blocks joined."""
        return "".join(b.text for b in self.content if isinstance(b, TextContent))


Message = Annotated[UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")]


class ToolResult(WireModel):
    """What a tool returns: content for the model, details for the UI, and a terminate flag."""

    content: list[ToolResultContent] = Field(default_factory=list)
    details: Any = None
    terminate: bool = False

    _coerce = field_validator("content", mode="before")(classmethod(lambda cls, v: _coerce_text(v)))

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
            block.__dict__["arguments"] = frozen_value(block.arguments)
        mark_frozen(block)
    message.__dict__["content"] = FrozenList(message.content)
    mark_frozen(message)
    return message


# ---------------------------------------------------------------------------- wire helpers

_message_adapter: TypeAdapter[Message] | None = None


def to_wire(model: BaseModel) -> dict[str, Any]:
    """The camelCase JSON-ready dict of any message, event or block (``None`` fields dropped)."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def message_from_wire(data: dict[str, Any]) -> UserMessage | AssistantMessage | ToolResultMessage:
    """Parse a message from its wire dict (camelCase or snake_case keys)."""
    global _message_adapter
    if _message_adapter is None:
        _message_adapter = TypeAdapter(Message)
    return _message_adapter.validate_python(data)


_models_built: list[bool] = []


def build_message_models() -> None:
    """Build the message models' validators now, blocks first, if not done yet (pydantic builds
    a model at its first use). The event models holding a message, built at their first use
    too, then reuse them instead of generating every message schema again inside each event's:
    a run's first events cost ~9 ms of building instead of ~15."""
    if _models_built:
        return
    _models_built.append(True)
    blocks_first: tuple[type[BaseModel], ...] = (
        TextContent, ImageContent, ThinkingContent, ToolCall, Cost, Usage,
        UserMessage, AssistantMessage, ToolResultMessage, ToolResult,
    )  # fmt: skip
    for model in blocks_first:
        model.model_rebuild()


def user_message(text: str, images: list[ImageContent] | None = None) -> UserMessage:
    """Build a user message from text and optional images."""
    blocks: list[Any] = [TextContent(text=text)]
    blocks.extend(images or [])
    return UserMessage(content=blocks)
