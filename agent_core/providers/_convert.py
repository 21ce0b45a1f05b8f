"""Our messages -> OpenAI Chat Completions / Anthropic Messages request shapes.

History is first normalised so no API rejects it (:mod:`.history`), and tool-call ids are
put in the provider's form (:mod:`.tool_ids`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agent_core.messages import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from agent_core.providers._history import NO_RESULT as NO_RESULT
from agent_core.providers._history import normalize_history
from agent_core.providers._tool_ids import OutgoingIds
from agent_core.stream import LlmContext, ToolSpec

ToolIds = Callable[[str], str]
"""Our tool-call id -> the id a provider accepts (:class:`~.tool_ids.OutgoingIds`)."""


def _same(tool_id: str) -> str:
    return tool_id


_EPHEMERAL = {"type": "ephemeral"}


def _text_of(blocks: list[Any]) -> str:
    return "".join(b.text for b in blocks if isinstance(b, TextContent))


# ---------------------------------------------------------------------------- OpenAI


def _openai_parts(blocks: list[Any]) -> str | list[dict[str, Any]]:
    if all(isinstance(b, TextContent) for b in blocks):
        return _text_of(blocks)
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, TextContent):
            parts.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageContent):
            parts.append(
                {
                    "type": "image_url",
                    "image_url": {"url": f"data:{block.mime_type};base64,{block.data}"},
                }
            )
    return parts


def openai_messages(context: LlmContext, ids: ToolIds | None = None) -> list[dict[str, Any]]:
    """Chat Completions ``messages`` (system first; tool images follow as a user message).

    ``ids`` maps our tool-call ids to the provider's form (calls and results alike).
    """
    out: list[dict[str, Any]] = []
    if context.system_prompt:
        out.append({"role": "system", "content": context.system_prompt})
    out.extend(openai_entries(normalize_history(context.messages), ids or _same))
    return out


def openai_entries(messages: list[Message], tool_id: ToolIds) -> list[dict[str, Any]]:
    """The Chat Completions entries of normalised ``messages`` (images after their results)."""
    out: list[dict[str, Any]] = []
    pending_images: list[ImageContent] = []

    def flush_images() -> None:
        if pending_images:
            out.append(
                {
                    "role": "user",
                    "content": _openai_parts(
                        [
                            TextContent(text="Images returned by the tool calls above:"),
                            *pending_images,
                        ]
                    ),
                }
            )
            pending_images.clear()

    for msg in messages:
        if not isinstance(msg, ToolResultMessage):
            flush_images()
        if isinstance(msg, UserMessage):
            out.append({"role": "user", "content": _openai_parts(msg.content)})
        elif isinstance(msg, AssistantMessage):
            entry = _openai_assistant(msg, tool_id)
            if entry is not None:
                out.append(entry)
        else:
            text = _text_of(msg.content)
            images = [b for b in msg.content if isinstance(b, ImageContent)]
            pending_images.extend(images)
            if not text:
                text = "(see attached image)" if images else "(no output)"
            out.append({"role": "tool", "tool_call_id": tool_id(msg.tool_call_id), "content": text})
    flush_images()
    return out


def _openai_assistant(msg: AssistantMessage, tool_id: ToolIds) -> dict[str, Any] | None:
    # One pass over the blocks (its text and its calls); None when it holds neither.
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in msg.content:
        if isinstance(block, TextContent):
            texts.append(block.text)
        elif isinstance(block, ToolCall):
            arguments = block.raw_arguments
            calls.append(
                {
                    "id": tool_id(block.id),
                    "type": "function",
                    "function": {
                        "name": block.name,
                        "arguments": json.dumps(block.arguments)
                        if arguments is None
                        else arguments,
                    },
                }
            )
    text = "".join(texts)
    if not text and not calls:
        return None
    entry: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        entry["tool_calls"] = calls
    return entry


def openai_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Chat Completions ``tools``."""
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in tools
    ]


# ---------------------------------------------------------------------------- Anthropic


def _anthropic_blocks(blocks: list[Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, TextContent) and block.text:
            out.append({"type": "text", "text": block.text})
        elif isinstance(block, ImageContent):
            out.append(
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": block.mime_type, "data": block.data},
                }
            )
    return out


def _anthropic_assistant(msg: AssistantMessage, tool_id: ToolIds) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    signed_here = _from_anthropic(msg)
    for block in msg.content:
        if isinstance(block, ThinkingContent):
            if not signed_here:
                # Another provider's "signature" (litellm gives Mistral's thinking "mistral") is
                # no Anthropic signature: replayed as one, the request would be rejected.
                if block.thinking.strip() and not block.redacted:
                    out.append({"type": "text", "text": block.thinking})
            elif block.redacted and block.signature:
                out.append({"type": "redacted_thinking", "data": block.signature})
            elif block.signature:
                out.append(
                    {"type": "thinking", "thinking": block.thinking, "signature": block.signature}
                )
            elif block.thinking.strip():
                # Unsigned reasoning (another provider) cannot be replayed as thinking: keep as text.
                out.append({"type": "text", "text": block.thinking})
        elif isinstance(block, TextContent) and block.text:
            out.append({"type": "text", "text": block.text})
        elif isinstance(block, ToolCall):
            out.append(
                {
                    "type": "tool_use",
                    "id": tool_id(block.id),
                    "name": block.name,
                    "input": block.arguments,
                }
            )
    return out


def _from_anthropic(msg: AssistantMessage) -> bool:
    """Whether ``msg`` came from an Anthropic model (unknown origin, e.g. a test: assumed)."""
    if not msg.provider:
        return True
    origin = f"{msg.api} {msg.provider} {msg.model}".lower()
    return "anthropic" in origin or "claude" in origin


def anthropic_messages(
    context: LlmContext, *, cache: bool = True, ids: ToolIds | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Messages API ``(system, messages)``; prompt-cache breakpoints on system and last user turn.

    ``ids`` maps our tool-call ids to Anthropic's form (default: a fresh Anthropic mapping).
    """
    system: list[dict[str, Any]] = []
    if context.system_prompt:
        system.append({"type": "text", "text": context.system_prompt})
    out: list[dict[str, Any]] = []
    entries = anthropic_entries(
        normalize_history(context.messages), ids or OutgoingIds("anthropic")
    )
    for role, blocks in entries:
        if out and out[-1]["role"] == role:  # merge: tool results + a steered message, etc.
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    if cache:
        if system:
            system[-1]["cache_control"] = dict(_EPHEMERAL)
        for entry in reversed(out):
            if entry["role"] == "user":
                entry["content"][-1]["cache_control"] = dict(_EPHEMERAL)
                break
    return system, out


def anthropic_entries(
    messages: list[Message], tool_id: ToolIds
) -> list[tuple[str, list[dict[str, Any]]]]:
    """(role, content blocks) of each normalised message that has any, in order (unmerged)."""
    out: list[tuple[str, list[dict[str, Any]]]] = []
    for msg in messages:
        if isinstance(msg, UserMessage):
            role, blocks = "user", _anthropic_blocks(msg.content)
        elif isinstance(msg, AssistantMessage):
            role, blocks = "assistant", _anthropic_assistant(msg, tool_id)
        else:
            content = _anthropic_blocks(msg.content) or [{"type": "text", "text": "(no output)"}]
            role = "user"
            blocks = [
                {
                    "type": "tool_result",
                    "tool_use_id": tool_id(msg.tool_call_id),
                    "content": content,
                    "is_error": msg.is_error,
                }
            ]
        if blocks:
            out.append((role, blocks))
    return out


def anthropic_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Messages API ``tools``."""
    return [
        {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools
    ]
