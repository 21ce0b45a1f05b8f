"""A resumed conversation drawn as it was live: prompts, turn panels, thinking, tool blocks.

The stored messages become *groups* (a user message, or one turn: an assistant message with
the results of its tool calls), then blocks of the transcript's document. The transcript draws
the last :data:`FIRST_GROUPS` at once and older ones in batches of :data:`BATCH_GROUPS` when the
user scrolls to the top, so a 500-turn session opens as fast as a short one. Tool blocks are
collapsed to one line (Ctrl+O expands them); thinking blocks are collapsed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.tui.messages import clean, clean_value

if TYPE_CHECKING:
    from pi_cli.shell import FrontShell
    from pi_cli.tui.document.rows import Block
    from pi_cli.tui.options import TuiOptions


class _HistoryTarget(Protocol):
    def history(self, messages: list[Any], note: str | None = None) -> None: ...


class _Edges(Protocol):
    def edge(self, bottom: bool) -> None: ...


class HistoryHost(Protocol):
    """The app as a resumed conversation is drawn into it (the transcript imports this module:
    its parts are named by what is used of them, not by their classes)."""

    shell: FrontShell | None
    options: TuiOptions

    @property
    def transcript(self) -> _HistoryTarget: ...
    @property
    def scroller(self) -> _Edges: ...


FIRST_GROUPS = 12  # groups mounted at once: more than a tall screen shows
BATCH_GROUPS = 12  # older groups mounted per scroll to the top
MARKDOWN_TURNS = 6  # of those, the last ones drawn as Markdown (older: plain text)


@dataclass
class Group:
    """One user message or one turn of a stored conversation (data only)."""

    kind: str  # "user", "turn", "summary"
    text: str = ""
    thinking: list[str] = field(default_factory=list)
    parts: list[tuple[str, Any]] = field(default_factory=list)  # ("text", str) | ("tool", call)
    results: dict[str, Any] = field(default_factory=dict)  # call id -> ToolResultMessage
    tools: list[str] = field(default_factory=list)
    tokens: tuple[int, int] = (0, 0)
    error: str | None = None
    stop_reason: str = "stop"


def group_messages(messages: Sequence[Any]) -> list[Group]:
    """Stored messages as display groups, in order (tool results join their turn)."""
    from pi_cli.shell import compaction_summary_of

    groups: list[Group] = []
    calls: dict[str, Group] = {}
    for message in messages:
        role = getattr(message, "role", "")
        if role == "user":
            text = clean(message.text)
            summary = compaction_summary_of(text)
            groups.append(Group("summary", summary) if summary is not None else Group("user", text))
        elif role == "assistant":
            group = Group("turn", stop_reason=message.stop_reason)
            for block in message.content:
                kind = getattr(block, "type", "")
                if kind == "text" and block.text.strip():
                    group.parts.append(("text", clean(block.text)))
                elif kind == "thinking" and block.thinking.strip():
                    group.parts.append(("thinking", clean(block.thinking)))
                elif kind == "toolCall":
                    group.parts.append(("tool", block))
                    group.tools.append(clean(block.name))
                    calls[block.id] = group
            usage = message.usage
            group.tokens = (usage.input + usage.cache_read, usage.output)
            if message.stop_reason in ("error", "aborted", "refusal", "length"):
                why = getattr(message, "refusal", None) or message.error_message
                group.error = clean(why or "")
            groups.append(group)
        elif role == "toolResult" and message.tool_call_id in calls:
            calls[message.tool_call_id].results[message.tool_call_id] = message
    return groups


def count_turns(groups: Sequence[Group]) -> int:
    """How many turn panels ``groups`` hold."""
    return sum(1 for group in groups if group.kind == "turn")


def build_group(
    group: Group,
    number: int,
    clock: Callable[[], float],
    describe: Callable[[str, Any], str],
    markdown: bool,
) -> Block:
    """The block of one group: a user message, a summary, or a finished turn panel."""
    from pi_cli.tui.document.entries import NoteBlock, SummaryBlock, user_block
    from pi_cli.tui.document.turn import ThinkingBlock, TurnBlock, turn_title

    if group.kind == "user":
        return user_block(group.text)
    if group.kind == "summary":
        return SummaryBlock(group.text)
    children: list[Block] = []
    for kind, value in group.parts:
        if kind == "thinking":
            children.append(ThinkingBlock(value, collapsed=True))
        elif kind == "text":
            children.append(_answer(value, markdown))
        else:
            children.append(_tool_block(value, group.results.get(value.id), describe))
    if group.error is not None:
        note, css = _stop_note(group)
        children.append(NoteBlock(note, css))
    title = turn_title(number, group.tools, group.tokens, None)
    return TurnBlock(number, clock, live=False, children=children, title=title)


def _stop_note(group: Group) -> tuple[str, str]:
    """The note a turn that did not end normally shows (as live, see the transcript)."""
    why = f": {group.error}" if group.error else ""
    return {
        "aborted": ("Aborted.", "aborted"),
        "refusal": (f"The model refused to answer{why}", "aborted"),
        "length": ("Cut at the model's output token limit: the answer is incomplete.", "aborted"),
    }.get(group.stop_reason, (f"Error: {group.error or 'the model request failed'}", "error"))


def _answer(text: str, markdown: bool) -> Block:
    if markdown:
        from pi_cli.tui.document.turn import AnswerBlock

        return AnswerBlock(text)
    # Older answers: plain text first (Markdown costs more to build in bulk).
    from pi_cli.tui.document.entries import PlainAnswer

    return PlainAnswer(text)


def _tool_block(call: Any, result: Any, describe: Callable[[str, Any], str]) -> Block:
    from pi_cli.tui.document.tool import ToolBlock

    name = clean(call.name)
    args = clean_value(call.arguments)
    # No clock: a resumed call has no duration to show.
    block = ToolBlock(call.id, name, args, clean(describe(name, args)), None, rest="collapsed")
    if result is None:  # the run was cut before the result was stored
        block.finish("(no result stored)", True, None)
    else:
        block.finish(clean(result.text), bool(result.is_error), clean_value(result.details))
    return block


async def show_history(app: HistoryHost, reason: str) -> None:
    """Draw the conversation ``app.shell`` holds, with a line saying what was resumed."""
    shell = app.shell
    if shell is None:
        return
    messages = list(shell.messages)
    session = app.options.session_label or shell.session.session_id[:8]
    note = f"Resumed {len(messages)} messages of session {session}." if messages else None
    if reason and reason != "new":
        note = f"Session {session} ({reason}): {len(messages)} messages."
    app.transcript.history(messages, note)
    app.scroller.edge(bottom=True)
