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


# ---------------------------------------------------------------------------- OpenAI Responses


def responses_events(turn: Turn, model: str, turn_index: int) -> list[bytes]:
    """SSE events of one Responses API stream, in the order and shapes OpenAI sends them.

    A reasoning item (``thinking``: its summary; ``thinking_signature``: its encrypted
    content), a message item (``text``, or ``refusal`` as a refusal part), then one
    ``function_call`` item per tool call; ``response.incomplete`` for ``stop_reason`` length.
    """
    rid = f"resp_{turn_index}"
    seq = iter(range(1_000_000))

    def event(kind: str, **fields: Any) -> bytes:
        return _sse({"type": kind, "sequence_number": next(seq), **fields}, kind)

    def response(status: str, output: list[Any], usage: Any = None) -> dict[str, Any]:
        return {
            "id": rid,
            "object": "response",
            "created_at": 1700000000,
            "status": status,
            "model": model,
            "output": output,
            "store": False,
            "usage": usage,
        }

    events = [event("response.created", response=response("in_progress", []))]
    output: list[dict[str, Any]] = []
    if turn.thinking:
        events += _responses_reasoning(turn, len(output), event, output)
    if turn.text or turn.refusal:
        events += _responses_message(turn, len(output), event, output)
    for i, call in enumerate(turn.tool_calls):
        item = {
            "type": "function_call",
            "id": f"fc_{turn_index}_{i}",
            "call_id": _call_id(turn_index, i, call.id, "call"),
            "name": call.name,
            "arguments": "",
            "status": "in_progress",
        }
        if call.id == "":
            del item["call_id"]
        index = len(output)
        events.append(event("response.output_item.added", output_index=index, item=item))
        for piece in _pieces(call.arguments_json(), turn.chunk_size):
            events.append(
                event(
                    "response.function_call_arguments.delta",
                    item_id=item["id"],
                    output_index=index,
                    delta=piece,
                )
            )
        done = {**item, "arguments": call.arguments_json(), "status": "completed"}
        events.append(event("response.output_item.done", output_index=index, item=done))
        output.append(done)
    u = turn.usage
    usage = {
        "input_tokens": u.input + u.cache_read,
        "input_tokens_details": {"cached_tokens": u.cache_read},
        "output_tokens": u.output,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": u.input + u.cache_read + u.output,
    }
    if turn.stop_reason == "length":
        final = response("incomplete", output, usage)
        final["incomplete_details"] = {"reason": "max_output_tokens"}
        events.append(event("response.incomplete", response=final))
    else:
        events.append(event("response.completed", response=response("completed", output, usage)))
    if turn.stream_error is not None:  # the API's `error` event, then the stream ends
        error = turn.stream_error
        flat = {"code": error.get("type"), "message": error.get("message"), "param": None}
        events = events[: turn.stream_error_after_chunks] + [event("error", **flat)]
    return events


def _responses_reasoning(
    turn: Turn, index: int, event: Any, output: list[dict[str, Any]]
) -> list[bytes]:
    rid = f"rs_{index}"
    item = {"type": "reasoning", "id": rid, "summary": []}
    events = [event("response.output_item.added", output_index=index, item=item)]
    for piece in _pieces(turn.thinking or "", turn.chunk_size):
        events.append(
            event(
                "response.reasoning_summary_text.delta",
                item_id=rid,
                output_index=index,
                summary_index=0,
                delta=piece,
            )
        )
    done = {
        **item,
        "summary": [{"type": "summary_text", "text": turn.thinking}],
        "encrypted_content": turn.thinking_signature or "enc-fake",
    }
    events.append(event("response.output_item.done", output_index=index, item=done))
    output.append(done)
    return events


def _responses_message(
    turn: Turn, index: int, event: Any, output: list[dict[str, Any]]
) -> list[bytes]:
    mid = f"msg_{index}"
    item = {"type": "message", "id": mid, "role": "assistant", "status": "in_progress"}
    events = [event("response.output_item.added", output_index=index, item={**item, "content": []})]
    kind, key = ("refusal", "refusal") if turn.refusal else ("output_text", "text")
    whole = turn.refusal or turn.text or ""
    delta_kind = "response.refusal.delta" if turn.refusal else "response.output_text.delta"
    for piece in _pieces(whole, turn.chunk_size):
        events.append(
            event(delta_kind, item_id=mid, output_index=index, content_index=0, delta=piece)
        )
    part = {"type": kind, key: whole}
    done = {**item, "status": "completed", "content": [part]}
    events.append(event("response.output_item.done", output_index=index, item=done))
    output.append(done)
    return events
