"""What an extension's handlers receive and may return: events, decisions, the context.

Handlers are ``def handler(event, ctx)`` or ``def handler(event)`` (sync or async). The shell's
own events (:data:`~pi_cli.shell.events.ShellEvent`: ``turn_end``, ``tool_execution_start``...)
arrive as they are; the events below are the ones a handler can change something with.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pi_cli.shell.extensions.names import DECISION_EVENTS, EVENT_ALIASES

if TYPE_CHECKING:
    from agent_core import AssistantMessage, ImageContent, Message, ToolResult

__all__ = [
    "DECISION_EVENTS",
    "EVENT_ALIASES",
    "AgentStartEvent",
    "Answer",
    "Block",
    "BeforeAgentStart",
    "ContextEvent",
    "Handled",
    "InputEvent",
    "ModelSelectEvent",
    "Patch",
    "ProviderRequestEvent",
    "ProviderResponseEvent",
    "Rewrite",
    "SessionCompactEvent",
    "SessionShutdownEvent",
    "SessionStartEvent",
    "SessionSwitchEvent",
    "ToolCallEvent",
    "ToolResultEvent",
]

# ---------------------------------------------------------------------------- decisions


@dataclass(frozen=True)
class Block:
    """``before_tool_call``: do not run the call; the model reads ``reason``."""

    reason: str = ""


@dataclass(frozen=True)
class Rewrite:
    """``before_tool_call``: run the call with these arguments instead (the permission checks
    see the new arguments)."""

    args: dict[str, Any]


@dataclass(frozen=True)
class Answer:
    """``before_tool_call``: do not run the tool; ``result`` (text or a ``ToolResult``) is its
    result, as if it had run."""

    result: str | ToolResult
    is_error: bool = False


_KEEP: Any = object()


@dataclass(frozen=True)
class Patch:
    """``after_tool_call``: replace what is given of the result (text or content blocks, the
    details, the error flag); what is not given stays."""

    content: Any = _KEEP
    details: Any = _KEEP
    is_error: Any = _KEEP

    def fields(self) -> dict[str, Any]:
        """The fields given."""
        return {k: v for k, v in vars(self).items() if v is not _KEEP}


@dataclass(frozen=True)
class Handled:
    """``input``: the input was dealt with; nothing goes to the model (``output`` is shown)."""

    output: str | None = None


@dataclass(frozen=True)
class BeforeAgentStart:
    """``before_agent_start``: what to change about the run about to start (``None``: keep).

    ``prompt`` replaces the user's text; ``system_prompt`` is the system prompt for this run
    only (the next run starts from pi's again); ``messages`` are added after the prompt (text
    becomes a user message; an agent_core ``Message`` is kept as it is) and stay in the session.
    """

    prompt: str | None = None
    system_prompt: str | None = None
    messages: tuple[str | Message, ...] = ()


# ---------------------------------------------------------------------------- events


@dataclass
class ToolCallEvent:
    """``before_tool_call`` (pi-ts: ``tool_call``): a validated call about to run.

    Return ``None`` (run it), :class:`Block`, :class:`Rewrite` or :class:`Answer` (or the dicts
    ``{"block": True, "reason": ...}``, ``{"args": {...}}``, ``{"result": ...}``).
    """

    tool_name: str
    tool_call_id: str
    args: dict[str, Any]
    cwd: Path
    type: Literal["before_tool_call"] = "before_tool_call"

    @property
    def input(self) -> dict[str, Any]:
        """The arguments (pi-ts's name)."""
        return self.args


@dataclass
class ToolResultEvent:
    """``after_tool_call`` (pi-ts: ``tool_result``): a finished call. Return ``None`` or a
    :class:`Patch` (or a dict with ``content``, ``details``, ``is_error``)."""

    tool_name: str
    tool_call_id: str
    args: dict[str, Any]
    result: ToolResult
    is_error: bool
    type: Literal["after_tool_call"] = "after_tool_call"

    @property
    def text(self) -> str:
        """The result's text."""
        return self.result.text


@dataclass
class InputEvent:
    """``input``: what the user typed, before commands and templates. Return ``None``, the text
    to use instead, or :class:`Handled`."""

    text: str
    type: Literal["input"] = "input"


@dataclass
class ProviderRequestEvent:
    """``before_provider_request``: one model request about to go out. Change its fields in
    place (or return a dict of them): ``model`` as ``provider/id`` sends it to another model;
    ``system_prompt``, ``messages``, ``tools`` (JSON schemas), ``thinking``, ``max_tokens``."""

    model: str
    system_prompt: str
    messages: list[Message]
    tools: list[dict[str, Any]]
    thinking: str
    max_tokens: int | None
    type: Literal["before_provider_request"] = "before_provider_request"


@dataclass
class ProviderResponseEvent:
    """``after_provider_response``: the model's finished answer to one request. Return
    ``None`` or an ``AssistantMessage`` to keep instead (what was streamed stays on screen)."""

    model: str
    message: AssistantMessage
    type: Literal["after_provider_response"] = "after_provider_response"


@dataclass
class ContextEvent:
    """``context`` (a context transform): the messages about to be sent (a copy). Return the
    list to send instead (the session keeps the real history)."""

    messages: list[Message]
    type: Literal["context"] = "context"


@dataclass
class AgentStartEvent:
    """``before_agent_start``: a prompt is about to start a run (after ``input``, commands and
    templates). Change ``prompt`` or ``system_prompt`` in place, or return a
    :class:`BeforeAgentStart` (or a dict of its fields: ``prompt``, ``system_prompt`` /
    ``systemPrompt``, ``messages`` / ``message``)."""

    prompt: str
    system_prompt: str
    images: list[ImageContent]
    type: Literal["before_agent_start"] = "before_agent_start"

    @property
    def systemPrompt(self) -> str:
        """The system prompt (pi-ts's name)."""
        return self.system_prompt


@dataclass
class SessionSwitchEvent:
    """``session_switch`` / ``session_fork`` / ``session_tree``: the session changed (``/new``,
    a resume, ``/fork``, a ``/tree`` move). ``reason``: ``new``, ``resume``, ``fork``, ``tree``."""

    reason: str
    session_id: str
    session_file: str | None
    previous_session_file: str | None
    type: str = "session_switch"


@dataclass
class SessionCompactEvent:
    """``session_compact``: a compaction finished (``summary`` is ``None`` when it failed or
    was aborted)."""

    reason: str
    summary: str | None
    first_kept_entry_id: str | None
    tokens_before: int
    tokens_after: int
    type: Literal["session_compact"] = "session_compact"


@dataclass
class ModelSelectEvent:
    """``model_select``: the model (or thinking level) changed: ``/model``, a cycle key,
    ``set_model``, a resumed session. ``previous_model`` is ``None`` at the first change."""

    model: str
    previous_model: str | None
    thinking: str
    type: Literal["model_select"] = "model_select"


SessionStartReason = Literal["startup", "new", "resume", "fork", "tree", "reload"]


@dataclass
class SessionStartEvent:
    """``session_start``: the extension was loaded into a session, or the session changed."""

    session_id: str
    session_file: str | None
    reason: SessionStartReason = "startup"
    type: Literal["session_start"] = "session_start"


@dataclass
class SessionShutdownEvent:
    """``session_shutdown``: pi exits, or ``/reload`` replaces the extension."""

    reason: Literal["exit", "reload"] = "exit"
    type: Literal["session_shutdown"] = "session_shutdown"


@dataclass
class KeyEvent:
    """A key binding of the extension was pressed (its handler gets this)."""

    id: str
    type: Literal["key"] = "key"


@dataclass
class CommandEvent:
    """A slash command of the extension ran (``args``: the text after its name)."""

    name: str
    args: str
    type: Literal["command"] = "command"
