"""A complete (non-streamed) answer turned into the items its stream would have carried.

Some gateways and servers ignore ``stream: true`` and send the whole response as one JSON
body. Rather than fail, each wire's accumulator is fed what the stream would have said.
"""

from __future__ import annotations

import json
from typing import Any

Items = list[tuple[str, Any]]
_DELTA_KEYS = ("content", "reasoning_content", "reasoning", "reasoning_details", "refusal")


def chat_completion_items(data: Any) -> Items | None:
    """A Chat Completions ``chat.completion`` body as chunks (None if it is not one)."""
    if not isinstance(data, dict) or not isinstance(data.get("choices"), list):
        return None
    choices = []
    for choice in data["choices"]:
        if not isinstance(choice, dict) or not isinstance(choice.get("message"), dict):
            return None
        message = choice["message"]
        delta = {key: message[key] for key in _DELTA_KEYS if message.get(key) is not None}
        calls = message.get("tool_calls")
        if isinstance(calls, list):
            delta["tool_calls"] = [
                {**call, "index": i} for i, call in enumerate(calls) if isinstance(call, dict)
            ]
        choices.append(
            {
                "index": choice.get("index", 0),
                "delta": delta,
                "finish_reason": choice.get("finish_reason") or "stop",
            }
        )
    if not choices:
        return None
    chunk: dict[str, Any] = {"choices": choices}
    if isinstance(data.get("usage"), dict):
        chunk["usage"] = data["usage"]
    return [("message", chunk), ("message", "[DONE]")]


def anthropic_message_items(data: Any) -> Items | None:
    """A Messages API ``message`` body as SSE events (None if it is not one)."""
    if not isinstance(data, dict) or data.get("type") != "message":
        return None
    content = data.get("content")
    if not isinstance(content, list):
        return None
    usage: dict[str, Any] = data["usage"] if isinstance(data.get("usage"), dict) else {}
    items: Items = [("message_start", {"type": "message_start", "message": {"usage": usage}})]
    for index, block in enumerate(b for b in content if isinstance(b, dict)):
        start, deltas = _block(block)
        items.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            )
        )
        for delta in deltas:
            items.append(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        items.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    delta = {"stop_reason": data.get("stop_reason") or "end_turn"}
    if data.get("stop_details") is not None:
        delta["stop_details"] = data["stop_details"]
    items.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": delta,
                "usage": {"output_tokens": usage.get("output_tokens")},
            },
        )
    )
    items.append(("message_stop", {"type": "message_stop"}))
    return items


def _block(block: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    kind = block.get("type")
    if kind == "thinking":
        deltas = [{"type": "thinking_delta", "thinking": block.get("thinking") or ""}]
        if block.get("signature"):
            deltas.append({"type": "signature_delta", "signature": block["signature"]})
        return {"type": "thinking", "thinking": ""}, deltas
    if kind == "tool_use":
        start: dict[str, Any] = {
            "type": "tool_use",
            "id": block.get("id"),
            "name": block.get("name"),
            "input": {},
        }
        raw = json.dumps(block.get("input") if block.get("input") is not None else {})
        return start, [{"type": "input_json_delta", "partial_json": raw}]
    return block, []  # text (its text rides on the start), redacted_thinking, anything newer
