"""The pure parts of compaction: its result and error, the summary request, where to cut."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from agent_core import AssistantMessage, Message, Tool, ToolResultMessage, UserMessage
from pi_cli.shell.models.usage import message_tokens
from pi_cli.shell.tool_info import call_effects


class CompactionError(Exception):
    """Compaction could not run or the model could not summarise."""


@dataclass
class CompactionResult:
    """What one compaction did."""

    summary: str
    first_kept_entry_id: str | None
    tokens_before: int
    tokens_after: int
    entry_id: str


TOOL_RESULT_CHARS = 2000

SUMMARY_SYSTEM = (
    "You are a context summarization assistant. You read a conversation between a user and an AI "
    "coding assistant and write a structured summary that lets the assistant continue the work "
    "without the original messages. Do not continue the conversation; output only the summary."
)

SUMMARY_FORMAT = """Write the summary in exactly this format:

## Goal
[What the user is trying to accomplish]

## Constraints & Preferences
- [Requirements, preferences and constraints stated by the user]

## Progress
### Done
- [Completed work]
### In Progress
- [Current work]
### Blocked
- [Open problems, if any]

## Key Decisions
- [Decision and its reason]

## Next Steps
1. [What should happen next]

## Critical Context
- [Exact file paths, function names, error messages, data needed to continue]"""


def _short(value: str, limit: int) -> str:
    return (
        value
        if len(value) <= limit
        else value[:limit] + f"... [{len(value) - limit} more characters]"
    )


def serialize_conversation(messages: list[Message]) -> str:
    """The conversation as plain text (the model must summarise it, not continue it)."""
    lines: list[str] = []
    for message in messages:
        if isinstance(message, UserMessage):
            lines.append(f"[User]: {message.text}")
        elif isinstance(message, AssistantMessage):
            if message.text:
                lines.append(f"[Assistant]: {message.text}")
            calls = [
                f"{c.name}({json.dumps(c.arguments, ensure_ascii=False)})"
                for c in message.tool_calls
            ]
            if calls:
                lines.append("[Assistant tool calls]: " + "; ".join(calls))
        elif isinstance(message, ToolResultMessage):
            flag = " (error)" if message.is_error else ""
            lines.append(f"[Tool result{flag}]: {_short(message.text, TOOL_RESULT_CHARS)}")
    return "\n\n".join(lines)


def find_cut_point(messages: list[Message], keep_recent_tokens: int) -> int:
    """Index of the first message kept verbatim (0 = nothing to summarise).

    Walks back from the newest message until ``keep_recent_tokens`` are covered, then moves
    further back while the cut would land on a tool result, so a tool call and its result are
    never separated, and to the start of that turn (its user message) when one precedes it.
    """
    kept = 0
    cut = 0
    for index in range(len(messages) - 1, -1, -1):
        kept += message_tokens(messages[index])
        if kept >= keep_recent_tokens:
            cut = index
            break
    while cut > 0 and isinstance(messages[cut], ToolResultMessage):
        cut -= 1
    # Prefer a whole turn (from its user message) unless that would leave nothing to summarise.
    turn_start = next((i for i in range(cut, -1, -1) if isinstance(messages[i], UserMessage)), 0)
    return turn_start if turn_start > 0 else cut


def last_user_index(messages: list[Message]) -> int:
    """Index of the last user message (0 if none)."""
    return next(
        (i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], UserMessage)), 0
    )


def build_summary_request(
    messages: list[Message], previous: str | None, instructions: str | None
) -> str:
    """The user message asking the model for the summary."""
    parts = [f"<conversation>\n{serialize_conversation(messages)}\n</conversation>"]
    if previous:
        parts.append(
            f"<previous-summary>\n{previous}\n</previous-summary>\n"
            "The conversation above continues from this earlier summary: merge both into one."
        )
    parts.append(SUMMARY_FORMAT)
    if instructions:
        parts.append(f"Additional focus from the user: {instructions}")
    return "\n\n".join(parts)


def file_operations(messages: list[Message], tools: Sequence[Tool]) -> tuple[set[str], set[str]]:
    """(files read, files modified) according to the tool calls in ``messages``.

    Each tool says which files a call reads or writes (``Tool.file_effects``).
    """
    read: set[str] = set()
    modified: set[str] = set()
    for message in messages:
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls:
                for effect in call_effects(tools, call.name, call.arguments):
                    (modified if effect.access == "write" else read).add(effect.path)
    return read - modified, modified
