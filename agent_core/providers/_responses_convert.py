"""Our messages -> OpenAI Responses API ``input`` items (stateless: nothing stored server-side).

Each message converts on its own (:func:`message_items`), given only the tool-id mapping, so a
per-message cache of provider forms can hold these items as it holds the other APIs' messages.

Replay rules, as Codex (the reference stateless client) sends them:

- no item ``id`` is sent (``store: false``: the server keeps no item an id could name);
- a reasoning item goes back whole as it came (``summary`` and ``encrypted_content``), which
  pi keeps in ``ThinkingContent.signature`` as the item's JSON (the TypeScript pi's form);
- thinking without such a signature (another provider's) is sent as assistant text, so the
  context survives a switch of provider;
- tool results are ``function_call_output`` items; images go in the output's content list.
"""

from __future__ import annotations

import json
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
from agent_core.providers._convert import ToolIds
from agent_core.providers._history import normalize_history
from agent_core.stream import LlmContext, ToolSpec

REASONING_KEYS = ("type", "summary", "encrypted_content", "content")
"""What of a reasoning item pi keeps and sends back (never its id: see the module docstring)."""


def reasoning_signature(item: dict[str, Any]) -> str:
    """The JSON pi keeps in ``ThinkingContent.signature`` for a Responses reasoning item."""
    kept = {key: item[key] for key in REASONING_KEYS if item.get(key) is not None}
    kept["type"] = "reasoning"
    kept.setdefault("summary", [])
    return json.dumps(kept, ensure_ascii=False, separators=(",", ":"))


def reasoning_item(signature: str | None) -> dict[str, Any] | None:
    """The reasoning item a signature holds, or None when it is not one of ours."""
    if not signature or not signature.startswith("{"):
        return None
    try:
        item = json.loads(signature)
    except ValueError:
        return None
    if not isinstance(item, dict) or item.get("type") != "reasoning":
        return None
    out = {key: item[key] for key in REASONING_KEYS if item.get(key) is not None}
    if not isinstance(out.get("summary"), list):
        out["summary"] = []
    if not out.get("encrypted_content"):
        return None  # without it the item names server-side state that was never stored
    out.pop("content", None)  # raw reasoning text is output only; the API refuses it as input
    return out


def _user_parts(blocks: list[Any]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if isinstance(block, TextContent):
            parts.append({"type": "input_text", "text": block.text})
        elif isinstance(block, ImageContent):
            parts.append(
                {
                    "type": "input_image",
                    "image_url": f"data:{block.mime_type};base64,{block.data}",
                    "detail": "auto",
                }
            )
    return parts


def _assistant_items(msg: AssistantMessage, tool_id: ToolIds) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    texts: list[str] = []

    def flush_text() -> None:
        text = "".join(texts)
        texts.clear()
        if text:
            items.append(
                {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": text, "annotations": []}],
                }
            )

    for block in msg.content:
        if isinstance(block, TextContent):
            texts.append(block.text)
        elif isinstance(block, ThinkingContent):
            item = reasoning_item(block.signature) if _from_responses(msg) else None
            if item is not None:
                flush_text()
                items.append(item)
            elif block.thinking.strip() and not block.redacted:
                texts.append(block.thinking)
        elif isinstance(block, ToolCall):
            flush_text()
            arguments = block.raw_arguments
            items.append(
                {
                    "type": "function_call",
                    "call_id": tool_id(block.id),
                    "name": block.name,
                    "arguments": json.dumps(block.arguments) if arguments is None else arguments,
                }
            )
    flush_text()
    return items


def _from_responses(msg: AssistantMessage) -> bool:
    """Reasoning items are only valid for the API that made them (and its Azure/Codex kin)."""
    return msg.api in ("openai-responses", "") or "responses" in msg.api


def _tool_output(msg: ToolResultMessage, tool_id: ToolIds) -> dict[str, Any]:
    text = "".join(b.text for b in msg.content if isinstance(b, TextContent))
    images = [b for b in msg.content if isinstance(b, ImageContent)]
    output: str | list[dict[str, Any]]
    if images:
        output = _user_parts(([TextContent(text=text)] if text else []) + images)
    else:
        output = text or "(no output)"
    return {"type": "function_call_output", "call_id": tool_id(msg.tool_call_id), "output": output}


def message_items(msg: Message, tool_id: ToolIds) -> list[dict[str, Any]]:
    """The ``input`` items of one (normalised) message."""
    if isinstance(msg, UserMessage):
        parts = _user_parts(msg.content)
        return [{"role": "user", "content": parts}] if parts else []
    if isinstance(msg, AssistantMessage):
        return _assistant_items(msg, tool_id)
    return [_tool_output(msg, tool_id)]


def responses_input(context: LlmContext, tool_id: ToolIds) -> list[dict[str, Any]]:
    """The whole ``input`` list (the system prompt goes in ``instructions``, not here)."""
    items: list[dict[str, Any]] = []
    for msg in normalize_history(context.messages):
        items.extend(message_items(msg, tool_id))
    return items


def responses_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    """Responses ``tools`` (flat function definitions, not strict: pi's schemas are open)."""
    return [
        {
            "type": "function",
            "name": t.name,
            "description": t.description,
            "parameters": t.parameters,
            "strict": False,
        }
        for t in tools
    ]
