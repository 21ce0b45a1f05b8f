"""Request checks the real APIs make, for a strict fake server (HTTP 400 like theirs).

OpenAI: tool-call ids unique per message and at most 40 characters, each ``tool`` message
answering a call of the assistant message before it, every call answered. Anthropic: the same
pairing for ``tool_use``/``tool_result`` and ids matching ``[a-zA-Z0-9_-]+``. Mistral (and vLLM
serving a Mistral model): ids of exactly nine letters or digits.
"""

from __future__ import annotations

import re
from typing import Any

_ANTHROPIC_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_MISTRAL_ID = re.compile(r"[a-zA-Z0-9]{9}")


def openai_problem(body: dict[str, Any], *, mistral: bool = False) -> str | None:
    """The 400 message OpenAI (or Mistral) would send for ``body``, or None."""
    pending: set[str] = set()
    for i, message in enumerate(body.get("messages") or []):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in pending:
                return (
                    f"Invalid parameter: messages[{i}]: messages with role 'tool' must be a "
                    f"response to a preceding message with 'tool_calls' (id {call_id!r})"
                )
            pending.discard(call_id)
            continue
        if pending:
            return (
                "An assistant message with 'tool_calls' must be followed by tool messages "
                f"responding to each 'tool_call_id'. Missing: {sorted(pending)}"
            )
        if role != "assistant":
            continue
        ids = [call.get("id") for call in message.get("tool_calls") or []]
        if len(set(ids)) != len(ids):
            return f"Invalid parameter: messages[{i}].tool_calls: duplicate id"
        for call_id in ids:
            if not isinstance(call_id, str) or not call_id:
                return f"Invalid parameter: messages[{i}].tool_calls: missing id"
            if mistral and not _MISTRAL_ID.fullmatch(call_id):
                return f"Tool call id was {call_id} but must be a-z, A-Z, 0-9, with a length of 9."
            if len(call_id) > 40:
                return (
                    f"Invalid 'messages[{i}].tool_calls[0].id': string too long. "
                    "Expected a string with maximum length 40"
                )
        pending = set(ids)
    if pending:
        return f"tool_call ids without a response: {sorted(pending)}"
    return None


def anthropic_problem(body: dict[str, Any]) -> str | None:
    """The 400 message Anthropic would send for ``body``, or None."""
    previous: set[str] = set()
    for i, message in enumerate(body.get("messages") or []):
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        if message.get("role") == "assistant":
            ids = [b.get("id") for b in blocks if b.get("type") == "tool_use"]
            if len(set(ids)) != len(ids):
                return f"messages.{i}: `tool_use` ids must be unique"
            for call_id in ids:
                if not isinstance(call_id, str) or not _ANTHROPIC_ID.fullmatch(call_id):
                    return (
                        f"messages.{i}.content: tool_use.id: String should match pattern "
                        f"'^[a-zA-Z0-9_-]+$' ({call_id!r})"
                    )
            previous = set(ids)
            continue
        answered = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
        for call_id in answered:
            if call_id not in previous:
                return (
                    f"messages.{i}.content: unexpected `tool_use_id` found in `tool_result` "
                    f"blocks: {call_id}"
                )
        missing = previous - set(answered)
        if missing:
            return (
                f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {', '.join(sorted(missing))}"
            )
        previous = set()
    if previous:
        return "the last assistant message has tool_use blocks without results"
    return None
