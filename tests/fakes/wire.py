"""Render a scripted :class:`Turn` as OpenAI Chat Completions or Anthropic Messages SSE events."""

from __future__ import annotations

import json
from typing import Any

from tests.fakes.script import Turn


def _pieces(text: str, size: int) -> list[str]:
    if size <= 0 or len(text) <= size:
        return [text]
    return [text[i : i + size] for i in range(0, len(text), size)]


def _sse(data: Any, event: str | None = None) -> bytes:
    # Raw UTF-8, as real servers send it: U+2028 and friends arrive unescaped.
    body = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {body}\n\n".encode()


def _call_id(turn_index: int, call_index: int, given: str | None, prefix: str) -> str:
    return given if given is not None else f"{prefix}_{turn_index}_{call_index}"


# ---------------------------------------------------------------------------- OpenAI


def openai_events(turn: Turn, model: str, turn_index: int) -> list[bytes]:
    """SSE events of one Chat Completions stream (``stream_options.include_usage`` honoured)."""
    base = {
        "id": f"chatcmpl-{turn_index}",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": model,
    }
    u = turn.usage
    usage = {
        "prompt_tokens": u.input + u.cache_read,
        "completion_tokens": u.output,
        "total_tokens": u.input + u.cache_read + u.output,
        "prompt_tokens_details": {"cached_tokens": u.cache_read},
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        data: dict[str, Any] = {
            **base,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        if turn.usage_mode == "every" or (turn.usage_mode == "finish" and finish):
            data["usage"] = usage
        return _sse(data)

    events = [chunk({"role": "assistant", "content": ""})]
    if turn.thinking:
        pieces = _pieces(turn.thinking, turn.chunk_size)
        if turn.content_parts:  # Magistral: thinking is a part holding text parts
            events += [
                chunk(
                    {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": p}]}]}
                )
                for p in pieces
            ]
        elif turn.think_tags:  # a local server without a reasoning parser
            events += [
                chunk({"content": p})
                for p in _pieces(f"<think>\n{turn.thinking}\n</think>\n\n", turn.chunk_size)
            ]
        else:
            events += [chunk({"reasoning_content": p}) for p in pieces]
    if turn.text:
        pieces = _pieces(turn.text, turn.chunk_size)
        if turn.content_parts:
            events += [chunk({"content": [{"type": "text", "text": p}]}) for p in pieces]
        else:
            events += [chunk({"content": p}) for p in pieces]
    if turn.refusal:
        events += [chunk({"refusal": p}) for p in _pieces(turn.refusal, turn.chunk_size)]
    for i, call in enumerate(turn.tool_calls):
        head: dict[str, Any] = {
            "index": i,
            "id": _call_id(turn_index, i, call.id, "call"),
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }
        if call.id == "":
            del head["id"]
        events.append(chunk({"tool_calls": [head]}))
        for piece in _pieces(call.arguments_json(), turn.chunk_size):
            events.append(chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}))
    natural = "tool_calls" if turn.tool_calls else "stop"
    finish = {"stop": "stop", "length": "length", "toolUse": "tool_calls"}.get(
        turn.stop_reason or "", turn.stop_reason or natural
    )
    events.append(chunk({}, finish))
    if turn.usage_mode == "separate":
        events.append(_sse({**base, "choices": [], "usage": usage}))
    events.append(_sse("[DONE]"))
    if turn.stream_error is not None:  # OpenAI-compatible servers send a bare error chunk
        events = events[: turn.stream_error_after_chunks] + [_sse({"error": turn.stream_error})]
    return events


def openai_error(status: int, message: str, error_type: str | None) -> dict[str, Any]:
    """An OpenAI-style error body."""
    return {
        "error": {
            "message": message,
            "type": error_type or "server_error",
            "param": None,
            "code": error_type,
        }
    }


# ---------------------------------------------------------------------------- Anthropic


def anthropic_events(turn: Turn, model: str, turn_index: int) -> list[bytes]:
    """SSE events of one Messages API stream."""
    u = turn.usage
    start_usage = {
        "input_tokens": u.input,
        "output_tokens": 1,
        "cache_read_input_tokens": u.cache_read,
        "cache_creation_input_tokens": u.cache_write,
    }
    events = [
        _sse(
            {
                "type": "message_start",
                "message": {
                    "id": f"msg_{turn_index}",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": start_usage,
                },
            },
            "message_start",
        )
    ]
    index = 0

    def block(start: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        nonlocal index
        events.append(
            _sse(
                {"type": "content_block_start", "index": index, "content_block": start},
                "content_block_start",
            )
        )
        for delta in deltas:
            events.append(
                _sse(
                    {"type": "content_block_delta", "index": index, "delta": delta},
                    "content_block_delta",
                )
            )
        events.append(_sse({"type": "content_block_stop", "index": index}, "content_block_stop"))
        index += 1

    if turn.redacted_thinking:
        block({"type": "redacted_thinking", "data": turn.redacted_thinking}, [])
    if turn.thinking:
        deltas = [
            {"type": "thinking_delta", "thinking": p}
            for p in _pieces(turn.thinking, turn.chunk_size)
        ]
        if turn.thinking_signature:
            deltas.append({"type": "signature_delta", "signature": turn.thinking_signature})
        block({"type": "thinking", "thinking": "", "signature": ""}, deltas)
    if turn.text:
        block(
            {"type": "text", "text": ""},
            [{"type": "text_delta", "text": p} for p in _pieces(turn.text, turn.chunk_size)],
        )
    if turn.refusal:
        block(
            {"type": "text", "text": ""},
            [{"type": "text_delta", "text": p} for p in _pieces(turn.refusal, turn.chunk_size)],
        )
    for i, call in enumerate(turn.tool_calls):
        start = {
            "type": "tool_use",
            "id": _call_id(turn_index, i, call.id, "toolu"),
            "name": call.name,
            "input": {},
        }
        if call.id == "":
            del start["id"]
        block(
            start,
            [
                {"type": "input_json_delta", "partial_json": p}
                for p in _pieces(call.arguments_json(), turn.chunk_size)
            ],
        )
    natural = "tool_use" if turn.tool_calls else "end_turn"
    if turn.refusal is not None or turn.refusal_explanation or turn.refusal_category:
        natural = "refusal"
    stop = {"stop": "end_turn", "length": "max_tokens", "toolUse": "tool_use"}.get(
        turn.stop_reason or "", turn.stop_reason or natural
    )
    delta: dict[str, Any] = {"stop_reason": stop, "stop_sequence": None}
    if stop == "refusal":
        delta["stop_details"] = {
            "type": "refusal",
            "category": turn.refusal_category,
            "explanation": turn.refusal_explanation,
        }
    events.append(
        _sse(
            {"type": "message_delta", "delta": delta, "usage": {"output_tokens": u.output}},
            "message_delta",
        )
    )
    events.append(_sse({"type": "message_stop"}, "message_stop"))
    if turn.stream_error is not None:
        error = _sse({"type": "error", "error": turn.stream_error}, "error")
        events = events[: turn.stream_error_after_chunks] + [error]
    return events


def anthropic_error(status: int, message: str, error_type: str | None) -> dict[str, Any]:
    """An Anthropic-style error body."""
    default = {
        401: "authentication_error",
        403: "permission_error",
        429: "rate_limit_error",
        529: "overloaded_error",
        400: "invalid_request_error",
    }.get(status, "api_error")
    return {"type": "error", "error": {"type": error_type or default, "message": message}}
