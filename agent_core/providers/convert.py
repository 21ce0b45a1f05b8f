"""Our messages -> OpenAI Chat Completions / Anthropic Messages request shapes.

History is first normalised so no API rejects it: a failed (error/aborted) assistant message
keeps only its text, tool calls left without a result get a synthetic error result
("No result provided"), and results whose call no longer exists are dropped.
"""

from __future__ import annotations

import json
import re
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
from agent_core.stream import LlmContext, ToolSpec

NO_RESULT = "No result provided"
_EPHEMERAL = {"type": "ephemeral"}


def normalize_history(messages: list[Message]) -> list[Message]:
    """Make tool calls and results pair up one to one; strip failed assistant messages to text."""
    out: list[Message] = []
    open_calls: dict[str, ToolCall] = {}

    def close_open() -> None:
        for call in open_calls.values():
            out.append(
                ToolResultMessage(
                    tool_call_id=call.id,
                    tool_name=call.name,
                    content=[TextContent(text=NO_RESULT)],
                    is_error=True,
                )
            )
        open_calls.clear()

    for msg in messages:
        if isinstance(msg, ToolResultMessage):
            if msg.tool_call_id in open_calls:
                del open_calls[msg.tool_call_id]
                out.append(msg)
            continue  # a result for a call that is not (or no longer) in the request
        close_open()
        if isinstance(msg, AssistantMessage):
            if msg.stop_reason in ("error", "aborted"):
                text = [b for b in msg.content if isinstance(b, TextContent) and b.text.strip()]
                if not text:
                    continue
                msg = msg.model_copy(update={"content": text})
            open_calls = {c.id: c for c in msg.tool_calls}
        out.append(msg)
    close_open()
    return out


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


def openai_messages(context: LlmContext) -> list[dict[str, Any]]:
    """Chat Completions ``messages`` (system first; tool images follow as a user message)."""
    out: list[dict[str, Any]] = []
    if context.system_prompt:
        out.append({"role": "system", "content": context.system_prompt})
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

    for msg in normalize_history(context.messages):
        if not isinstance(msg, ToolResultMessage):
            flush_images()
        if isinstance(msg, UserMessage):
            out.append({"role": "user", "content": _openai_parts(msg.content)})
        elif isinstance(msg, AssistantMessage):
            text = _text_of(msg.content)
            calls = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {
                        "name": c.name,
                        "arguments": c.raw_arguments
                        if c.raw_arguments is not None
                        else json.dumps(c.arguments),
                    },
                }
                for c in msg.tool_calls
            ]
            if not text and not calls:
                continue
            entry: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                entry["tool_calls"] = calls
            out.append(entry)
        else:
            text = _text_of(msg.content)
            images = [b for b in msg.content if isinstance(b, ImageContent)]
            pending_images.extend(images)
            if not text:
                text = "(see attached image)" if images else "(no output)"
            out.append({"role": "tool", "tool_call_id": msg.tool_call_id, "content": text})
    flush_images()
    return out


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


def anthropic_tool_id(tool_id: str) -> str:
    """Anthropic accepts ``[A-Za-z0-9_-]{1,64}`` ids; ids from other providers may not match."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", tool_id)[:64] or "tool"


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


def _anthropic_assistant(msg: AssistantMessage) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block in msg.content:
        if isinstance(block, ThinkingContent):
            if block.redacted and block.signature:
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
                    "id": anthropic_tool_id(block.id),
                    "name": block.name,
                    "input": block.arguments,
                }
            )
    return out


def anthropic_messages(
    context: LlmContext, *, cache: bool = True
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Messages API ``(system, messages)``; prompt-cache breakpoints on system and last user turn."""
    system: list[dict[str, Any]] = []
    if context.system_prompt:
        system.append({"type": "text", "text": context.system_prompt})
    out: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return
        if out and out[-1]["role"] == role:  # merge: tool results + a steered message, etc.
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for msg in normalize_history(context.messages):
        if isinstance(msg, UserMessage):
            add("user", _anthropic_blocks(msg.content))
        elif isinstance(msg, AssistantMessage):
            add("assistant", _anthropic_assistant(msg))
        else:
            content = _anthropic_blocks(msg.content) or [{"type": "text", "text": "(no output)"}]
            add(
                "user",
                [
                    {
                        "type": "tool_result",
                        "tool_use_id": anthropic_tool_id(msg.tool_call_id),
                        "content": content,
                        "is_error": msg.is_error,
                    }
                ],
            )
    if cache:
        if system:
            system[-1]["cache_control"] = dict(_EPHEMERAL)
        for entry in reversed(out):
            if entry["role"] == "user":
                entry["content"][-1]["cache_control"] = dict(_EPHEMERAL)
                break
    return system, out


def anthropic_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Messages API ``tools``."""
    return [
        {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools
    ]
