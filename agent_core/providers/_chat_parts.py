"""Small readers for the many shapes of Chat Completions deltas (OpenAI and compatible servers)."""

from __future__ import annotations

from typing import Any

FINISH: dict[str, str] = {
    "stop": "stop",
    "end_turn": "stop",
    "eos": "stop",
    "length": "length",
    "max_tokens": "length",
    "model_length": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
    "tool_use": "toolUse",
    "content_filter": "refusal",
    "refusal": "refusal",
}
"""``finish_reason`` -> our stop reason (``content_filter``: the provider refused)."""


def texts(value: Any, kind: str) -> list[str]:
    """Text from a string or a list of parts (``{"type": "text", "text": ...}`` or strings)."""
    if isinstance(value, str):
        return [value] if value else []
    if not isinstance(value, list):
        return []
    found = []
    for part in value:
        if isinstance(part, str) and part:
            found.append(part)
        elif isinstance(part, dict):
            text = part.get("text") or part.get(kind)
            if isinstance(text, str) and text:
                found.append(text)
    return found


def reasoning_details(details: Any) -> list[str]:
    """OpenRouter-style ``reasoning_details`` (``reasoning.text`` / ``reasoning.summary``)."""
    found = []
    for item in details if isinstance(details, list) else ():
        if isinstance(item, dict):
            text = item.get("text") or item.get("summary")
            if isinstance(text, str) and text:
                found.append(text)
    return found


def filtered(results: Any) -> str | None:
    """Which categories an (Azure) content filter flagged, e.g. ``content filter: violence``."""
    if not isinstance(results, dict):
        return None
    hits = [
        name for name, value in results.items() if isinstance(value, dict) and value.get("filtered")
    ]
    return f"content filter: {', '.join(sorted(hits))}" if hits else None
