"""History as every API accepts it: calls and results paired one to one, ids unique.

A failed (error/aborted) assistant message keeps only its text, tool calls left without a
result get a synthetic error result ("No result provided"), results whose call no longer
exists are dropped, and a message holding one tool-call id twice (saved by an older pi) has
the repeats renamed, its results matched to them in order.
"""

from __future__ import annotations

from typing import Any

from agent_core.messages import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
)

NO_RESULT = "No result provided"


def normalize_history(messages: list[Message]) -> list[Message]:
    """Make tool calls and results pair up one to one; strip failed assistant messages to text.

    A session saved before ids were made unique may hold two calls with one id in a message:
    the repeats are renamed (``X_2``...) and the results with that id given to the calls in
    order, so such a session stays sendable.
    """
    out: list[Message] = []
    open_calls: dict[str, ToolCall] = {}
    renamed: dict[str, list[str]] = {}  # a repeated id -> the ids of its later calls, in order

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
        renamed.clear()

    for msg in messages:
        if isinstance(msg, ToolResultMessage):
            call_id = msg.tool_call_id
            if call_id not in open_calls and renamed.get(call_id):
                new_id = renamed[call_id].pop(0)
                msg = msg.model_copy(update={"tool_call_id": new_id})
                call_id = new_id
            if call_id in open_calls:
                del open_calls[call_id]
                out.append(msg)
            continue  # a result for a call that is not (or no longer) in the request
        if open_calls or renamed:
            close_open()
        if isinstance(msg, AssistantMessage):
            if msg.stop_reason in ("error", "aborted"):
                text = [b for b in msg.content if isinstance(b, TextContent) and b.text.strip()]
                if not text:
                    continue
                msg = msg.model_copy(update={"content": text})
            calls = [b for b in msg.content if isinstance(b, ToolCall)]
            if len({c.id for c in calls}) != len(calls):  # rare: an id repeated (older pi)
                msg = _unique_call_ids(msg, renamed)
                calls = msg.tool_calls
            open_calls = {c.id: c for c in calls}
        out.append(msg)
    close_open()
    return out


def _unique_call_ids(msg: AssistantMessage, renamed: dict[str, list[str]]) -> AssistantMessage:
    calls = msg.tool_calls
    ids = {c.id for c in calls}
    if len(ids) == len(calls):
        return msg
    seen: set[str] = set()
    content: list[Any] = []
    for block in msg.content:
        if isinstance(block, ToolCall):
            if block.id in seen:
                n = 2
                while f"{block.id}_{n}" in ids:
                    n += 1
                new_id = f"{block.id}_{n}"
                ids.add(new_id)
                renamed.setdefault(block.id, []).append(new_id)
                block = block.model_copy(update={"id": new_id, "original_id": block.id})
            seen.add(block.id)
        content.append(block)
    return msg.model_copy(update={"content": content})
