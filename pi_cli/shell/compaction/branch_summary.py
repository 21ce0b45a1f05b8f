"""pi's ``branch_summary``: when ``/tree`` leaves a branch, the model may summarise what was
tried there; the summary hangs under the new position, so the next turns know about it.

The abandoned entries are those from the old leaf back to the deepest entry shared with the
target's path (as pi collects them); the entry is pi's ``{"type": "branch_summary", "fromId",
"summary", "details": {"readFiles", "modifiedFiles"}}`` and reaches the model as pi's
"summary of a branch that this conversation came back from" user message.
"""

from __future__ import annotations

from agent_core import AbortSignal, Message
from pi_cli.shell.compaction._request import request_summary
from pi_cli.shell.compaction.parts import file_operations, serialize_conversation
from pi_cli.shell.context import ShellContext
from pi_cli.shell.models.usage import message_tokens
from pi_cli.shell.session.index import EntryRef
from pi_cli.shell.session.store import SessionStore, entry_message

BRANCH_SUMMARY = "branch_summary"
PREAMBLE = (
    "The user explored a different conversation branch before returning here.\n"
    "Summary of that exploration:\n\n"
)
PROMPT = """Create a structured summary of this conversation branch for context when returning later.

Use this EXACT format:

## Goal
[What was the user trying to accomplish in this branch?]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned]
- [Or "(none)" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes]

### In Progress
- [ ] [Work that was started but not finished]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [What should happen next to continue this work]

Keep each section concise. Preserve exact file paths, function names, and error messages."""


def abandoned(session: SessionStore, old_leaf: str | None, target: str) -> list[EntryRef]:
    """The entries left behind when moving from ``old_leaf`` to ``target``, oldest first."""
    if old_leaf is None:
        return []
    old_path = {ref.id for ref in session.path_to(old_leaf)}
    shared = next((r.id for r in reversed(session.path_to(target)) if r.id in old_path), None)
    refs = session.path_to(old_leaf)
    cut = next((i + 1 for i, ref in enumerate(refs) if ref.id == shared), 0)
    return refs[cut:]


def _messages(session: SessionStore, refs: list[EntryRef], budget: int) -> list[Message]:
    messages: list[Message] = []
    for data in session.iter_entries([r for r in refs if r.type == "message"]):
        try:
            message = entry_message(data)
        except Exception:  # noqa: BLE001 - a bad entry is skipped, as in the context
            continue
        if message is not None:
            messages.append(message)
    kept: list[Message] = []
    used = 0
    for message in reversed(messages):  # the newest first, as far as the budget goes
        used += message_tokens(message)
        if used > budget and kept:
            break
        kept.append(message)
    return list(reversed(kept))


async def summarize_branch(
    shell: ShellContext, old_leaf: str | None, target: str, signal: AbortSignal
) -> tuple[str, dict[str, list[str]]] | None:
    """(summary text, details) of the branch left behind; ``None`` when nothing is left."""
    reserve = shell.settings.compaction.reserve_tokens
    refs = abandoned(shell.session, old_leaf, target)
    messages = _messages(shell.session, refs, max(shell.context_window - reserve, 4000))
    if not messages:
        return None
    prompt = f"<conversation>\n{serialize_conversation(messages)}\n</conversation>\n\n{PROMPT}"
    agent = shell.agent
    text = await request_summary(agent.stream_fn, agent.model, prompt, signal, 2048)
    read, modified = file_operations(messages, shell.tools)
    summary = PREAMBLE + text
    if read:
        summary += "\n\n<read-files>\n" + "\n".join(sorted(read)) + "\n</read-files>"
    if modified:
        summary += "\n\n<modified-files>\n" + "\n".join(sorted(modified)) + "\n</modified-files>"
    return summary, {"readFiles": sorted(read), "modifiedFiles": sorted(modified)}
