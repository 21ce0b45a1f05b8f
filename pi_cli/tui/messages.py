"""Textual messages the bridge posts for agent and shell events (small dataclasses).

They carry plain data only (strings, ints, dicts): never a live agent_core object, because
assistant partial messages keep changing after the event was emitted. The ones only the
transcript draws do not bubble (``bubble=False``): a long run posts thousands, and each would
be dispatched twice more (screen, app) for nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.message import Message

from pi_cli.shell import REDACTOR, MessageView
from pi_cli.shell import clean as terminal_clean


def clean(text: str) -> str:
    """``text`` through the one sanitizer (:func:`pi_cli.shell.clean`: escape sequences, C0 and
    C1 controls, bidi overrides; a sequence split across deltas loses its ESC, so its rest is
    inert text) and without the keys pi holds (masked by value, :mod:`pi_cli.shell.text.redaction`)."""
    return terminal_clean(REDACTOR(text))


def clean_value(value: Any) -> Any:
    """:func:`clean` applied to every string inside ``value`` (dicts, lists; keys too)."""
    if isinstance(value, str):
        return clean(value)
    if isinstance(value, dict):
        return {clean_value(k): clean_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_value(v) for v in value]
    return value


@dataclass
class RunStarted(Message):
    """A run (``agent_start``) began."""


@dataclass
class RunEnded(Message):
    """A run (``agent_end``) ended."""

    error: str | None = None
    """The agent's error, if the run failed outside the model (a bug)."""


@dataclass
class TurnStarted(Message, bubble=False):
    """A turn (``turn_start``) began."""


@dataclass
class TurnEnded(Message):
    """A turn (``turn_end``) ended."""

    tools: list[str] = field(default_factory=list)
    """Names of the tools called in this turn, in order."""
    input_tokens: int = 0
    """Input tokens of the turn's model call (cache reads included)."""
    output_tokens: int = 0
    """Output tokens of the turn's model call."""


@dataclass
class UserMessageShown(Message, bubble=False):
    """A user message reached the model (the prompt, or a delivered steer/follow-up)."""

    text: str
    """The message text."""
    injected: bool = False
    """True for a queued message delivered mid-run (steer or follow-up)."""


@dataclass
class AssistantText(Message, bubble=False):
    """A text delta of the assistant message."""

    index: int
    """Content block index (a new index starts a new Markdown segment)."""
    delta: str
    """The new text (grows while the message waits in the queue, see ``taken``)."""
    taken: bool = False
    """Set by the handler; until then the bridge appends further deltas here, so a fast stream
    costs one message per UI tick instead of one per chunk."""


@dataclass
class AssistantThinking(Message, bubble=False):
    """A thinking delta of the assistant message."""

    index: int
    """Content block index."""
    delta: str
    """The new thinking text (grows until ``taken``)."""
    taken: bool = False
    """Set by the handler (see :class:`AssistantText`)."""


@dataclass
class AssistantEnded(Message, bubble=False):
    """The assistant message is final."""

    stop_reason: str
    """Why the model stopped."""
    error: str | None = None
    """The provider's error (shown in the error colour)."""


@dataclass
class ToolStarted(Message, bubble=False):
    """A tool call started executing."""

    call_id: str
    """The tool call id."""
    name: str
    """The tool name."""
    args: Any = None
    """The call's arguments (a dict when valid)."""
    title: str = ""
    """The tool's one-line title of the call (``$ ls -la``); "" for an unknown tool."""


@dataclass
class ToolProgress(Message, bubble=False):
    """A running tool reported output (accumulated, not a delta)."""

    call_id: str
    """The tool call id."""
    text: str
    """All output so far."""


@dataclass
class ToolFinished(Message, bubble=False):
    """A tool call finished."""

    call_id: str
    """The tool call id."""
    name: str
    """The tool name."""
    text: str
    """The result text the model sees."""
    is_error: bool = False
    """True when the call failed."""
    details: Any = None
    """Tool details for the UI (``{"diff": ...}`` for edit)."""


@dataclass
class NoticeShown(Message, bubble=False):
    """A line of information for the transcript (shell notices, retries, compaction)."""

    text: str
    """What to show."""
    level: str = "info"
    """``info``, ``warning`` or ``error``."""


@dataclass
class CustomMessageDrawn(Message, bubble=False):
    """An extension's message for the transcript, as its renderer's view (text cleaned)."""

    view: MessageView
    custom_type: str
    expanded: MessageView | None = None


@dataclass
class RetryShown(Message):
    """A retry note for the turn it happened in (the countdown itself is in the footer)."""

    text: str
    """What happened (``Retrying (1/3) in 2.0s: HTTP 500 …``)."""
    level: str = "retry"
    """``retry`` (dim) or ``error``."""
    delay_s: float = 0.0
    """Seconds until the retry (0 for an end note)."""


@dataclass
class CompactionShown(Message, bubble=False):
    """An automatic compaction finished: a collapsed block with its summary."""

    title: str
    """``Compacted context: 570 → 256 tokens``."""
    summary: str = ""
    """The summary the model now reads instead of the older messages."""


@dataclass
class StatusChanged(Message):
    """Model, thinking level, session or usage changed: refresh the footer."""


@dataclass
class SessionSwitched(Message):
    """The shell switched session (``/new``, ``/resume``): re-render the transcript."""

    reason: str = "new"
    """Why (``new``, ``resume``, ``fork``, ``tree``)."""


@dataclass
class QueueShown(Message):
    """The shell's input queue changed: show it."""

    items: list[tuple[str, str, str]] = field(default_factory=list)
    """``(id, text, kind)`` per queued input, in delivery order (kind: steer, follow_up, held)."""


@dataclass
class QueueGivenBack(Message):
    """An aborted or failed run handed back what was queued: put it into the editor."""

    texts: list[str] = field(default_factory=list)
    """The queued texts, in order."""


@dataclass
class ShellBusy(Message):
    """The shell became busy or idle."""

    state: str = "idle"
    """``idle``, ``preparing``, ``running``, ``command`` or ``compacting``."""


@dataclass
class JumpToBottom(Message):
    """The "new output below" marker was clicked: scroll to the newest output."""


@dataclass
class ApprovalRequested(Message):
    """A tool call waits for the user's approval: open the approval modal."""

    request_id: str
    """The request's id (answered with ``shell.answer``)."""
    tool_name: str
    """The tool."""
    title: str
    """The call's one-line title (``$ rm -rf build``)."""
    reason: str
    """Why it asks."""
    preview: str
    """The full command or the edit's diff."""
    options: list[str] = field(default_factory=list)
    """The choices offered (allow_once, allow_session, allow_always, deny)."""
    rules: dict[str, list[str]] = field(default_factory=dict)
    """What "always" saves, per scope (project, user)."""
    question: str = ""
    """Asked instead of "Allow <tool>: <title>?" (a plan approval)."""
    labels: dict[str, str] = field(default_factory=dict)
    """Words for some options instead of the usual ones."""


@dataclass
class ApprovalClosed(Message):
    """A request was decided elsewhere (timeout, abort, a hook): close its modal."""

    request_id: str
    """The request's id."""


@dataclass
class ShellBuilt(Message):
    """The boot thread built the shell (or says why it could not)."""

    result: Any
    """The shell, or the user-facing reason it cannot start."""


@dataclass
class DialogShown(Message):
    """An extension or a tool asks the user something: open the dialog modal.

    Plain data: the question's fields (cleaned for the screen) and the options' labels as the
    asker gave them (the answer names those)."""

    request_id: str
    kind: str
    title: str
    message: str
    options: list[tuple[str, str]]
    """(label, description) as shown, cleaned."""
    labels: list[str]
    """The options' own labels, in the same order (what an answer names)."""
    multiple: bool = False
    allow_other: bool = False
    placeholder: str = ""
    default: str = ""
    source: str = ""
    view: MessageView | None = None
    """An extension's overlay: its lines, drawn instead of ``message`` (the shell cleaned them)."""


@dataclass
class DialogClosed(Message):
    """A dialog ended elsewhere (timeout, abort, another front end): close its modal."""

    request_id: str


@dataclass
class UiPieceChanged(Message):
    """An extension set or cleared a footer segment, a status line or a panel."""

    slot: str
    key: str
    text: str | None
    lines: list[str] | None


@dataclass
class ExtensionsReloaded(Message):
    """``/reload`` ran: extensions' keys and commands may have changed."""
