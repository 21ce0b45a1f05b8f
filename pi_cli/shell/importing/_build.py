"""Building pi messages from another agent's transcript, in order, with tool calls paired."""

from __future__ import annotations

import datetime as _dt
from collections import Counter
from typing import Any

from agent_core import (
    AssistantMessage,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

MAX_TEXT = 2_000_000
"""Characters kept of one text (a larger one is cut, and says so)."""


def millis(stamp: object, fallback: int) -> int:
    """An ISO 8601 time (``2026-01-02T18:39:45.123Z``) as epoch milliseconds."""
    if isinstance(stamp, int | float):
        return int(stamp)
    if isinstance(stamp, str):
        try:
            return int(_dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)
        except ValueError:
            pass
    return fallback


def clip(text: str) -> str:
    """``text``, cut at :data:`MAX_TEXT` characters with a note."""
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + f"\n[cut by pi import: {len(text) - MAX_TEXT} more characters]"


class Builder:
    """Collects messages; assistant blocks are held until something else comes."""

    def __init__(self, api: str, provider: str) -> None:
        self.messages: list[Message] = []
        self.blocks: list[TextContent | ThinkingContent | ToolCall] = []
        self.model = ""
        self.usage = Usage()
        self.stamp = 0
        self.api, self.provider = api, provider
        self.calls: dict[str, str] = {}
        """Tool call id -> pi tool name, of calls made so far."""
        self.answered: set[str] = set()
        self.kept_as_text: Counter[str] = Counter()
        self.skipped: Counter[str] = Counter()

    def text(self, text: str) -> None:
        """Assistant text."""
        if text:
            self.blocks.append(TextContent(text=clip(text)))

    def thinking(self, text: str, signature: str | None = None) -> None:
        """Assistant thinking (a signature only when the provider's own)."""
        if text or signature:
            self.blocks.append(ThinkingContent(thinking=clip(text), signature=signature))

    def call(self, call_id: str, name: str, arguments: dict[str, Any]) -> None:
        """An assistant tool call (pi's tool name and arguments)."""
        self.calls[call_id] = name
        self.blocks.append(ToolCall(id=call_id, name=name, arguments=arguments))

    def flush(self) -> None:
        """The held assistant blocks become one message."""
        if not self.blocks:
            return
        has_calls = any(isinstance(b, ToolCall) for b in self.blocks)
        self.messages.append(
            AssistantMessage(
                content=list(self.blocks),
                api=self.api,
                provider=self.provider,
                model=self.model,
                usage=self.usage,
                stop_reason="toolUse" if has_calls else "stop",
                timestamp=self.stamp,
            )
        )
        self.blocks = []
        self.usage = Usage()
        self.stamp = 0

    def user(self, content: list[Any], stamp: int) -> None:
        """A user message (text and images)."""
        self.flush()
        if content:
            self.messages.append(UserMessage(content=content, timestamp=stamp))

    def result(self, call_id: str, content: list[Any], is_error: bool, stamp: int) -> None:
        """A tool result; one without its call is kept as the user's text, named."""
        self.flush()
        name = self.calls.get(call_id)
        if name is None or call_id in self.answered:
            self.kept_as_text["tool result without its call"] += 1
            text = "".join(getattr(b, "text", "") for b in content)
            self.user([TextContent(text=f"[imported tool result {call_id}]\n{text}")], stamp)
            return
        self.answered.add(call_id)
        self.messages.append(
            ToolResultMessage(
                tool_call_id=call_id,
                tool_name=name,
                content=content or [TextContent(text="")],
                is_error=is_error,
                timestamp=stamp,
            )
        )

    def finish(self) -> list[Message]:
        """The messages; a call never answered gets a result saying so (a resumed run needs one)."""
        self.flush()
        out: list[Message] = []
        for message in self.messages:
            out.append(message)
            if isinstance(message, AssistantMessage):
                for block in message.content:
                    if isinstance(block, ToolCall) and block.id not in self.answered:
                        out.append(
                            ToolResultMessage(
                                tool_call_id=block.id,
                                tool_name=block.name,
                                content=[
                                    TextContent(text="[no result in the imported transcript]")
                                ],
                                is_error=True,
                                timestamp=message.timestamp,
                            )
                        )
        return self._ordered(out)

    def _ordered(self, messages: list[Message]) -> list[Message]:
        """Results right after their assistant message (transcripts may interleave)."""
        results = {m.tool_call_id: m for m in messages if isinstance(m, ToolResultMessage)}
        out: list[Message] = []
        for message in messages:
            if isinstance(message, ToolResultMessage):
                continue
            out.append(message)
            if isinstance(message, AssistantMessage):
                out += [
                    results.pop(b.id)
                    for b in message.content
                    if isinstance(b, ToolCall) and b.id in results
                ]
        return out
