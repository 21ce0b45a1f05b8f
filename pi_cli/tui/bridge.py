"""Bridge: shell events -> the Textual messages of :mod:`pi_cli.tui.messages`.

Events arrive synchronously on the asyncio loop thread (Textual's loop); the bridge converts each
into a small message and posts it to the transcript, which keeps their order and lets the ones
the app needs bubble up. Only this module knows the event classes. It is also the one place
where text from the model, tools and files is cleaned of terminal control characters
(:func:`~pi_cli.tui.messages.clean`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, assert_never

from textual.message import Message as UiMessage

from agent_core import (
    AgentEnd,
    AgentStart,
    AssistantMessage,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
    UserMessage,
)
from pi_cli.shell import (
    AutoRetryEnd,
    AutoRetryStart,
    BackgroundAgentChanged,
    BackgroundShellsChanged,
    BudgetExceeded,
    CompactionEnd,
    CompactionStart,
    CustomMessageShown,
    DiagnosticsReported,
    DialogRequested,
    DialogResolved,
    GoalChanged,
    GoalChecked,
    LspStatusChanged,
    McpStatusChanged,
    ModelChanged,
    MonitorDelivered,
    Notice,
    OwnEvent,
    PermissionModeChanged,
    PermissionRequested,
    PermissionResolved,
    QueueChanged,
    QueueReturned,
    Reloaded,
    ScheduleFired,
    SchedulesChanged,
    SessionChanged,
    ShellEvent,
    ShellStateChanged,
    StructuredOutput,
    SubagentEnded,
    SubagentEvent,
    SubagentStarted,
    TodoUpdated,
    UiChanged,
    shown_result,
)
from pi_cli.shell import clean as clean_whole
from pi_cli.tui import messages as m
from pi_cli.tui.agent_bridge import AgentBridge
from pi_cli.tui.messages import clean, clean_value

Describe = Callable[[str, Any], str]


class Bridge:
    """Converts events and posts them with ``post`` (normally ``Transcript.post_message``).

    Args:
        post: where the messages go.
        describe: the one-line title of a tool call (``CodingAgent.describe_call``).
    """

    def __init__(self, post: Callable[[UiMessage], Any], describe: Describe) -> None:
        self.post = post
        self.describe = describe
        self._users_in_run = 0
        self.runs_ended = 0  # agent_end events converted (the app counts the ones it rendered)
        self._open: m.AssistantText | m.AssistantThinking | None = None
        self._turn_open = False  # turn_start seen without its turn_end (a loop crash skips it)
        # What the model streamed in this run: finished turns' output tokens, plus characters
        # of the message still streaming (an estimate until its usage arrives). Footer only.
        self.run_output_tokens = 0
        self.streaming_chars = 0
        # Todos and sub-agents; each sub-agent's own events go through a bridge of its own.
        self.agents = AgentBridge(post, lambda wrap: Bridge(wrap, describe))

    def _delta(self, sub: TextDelta | ThinkingDelta) -> UiMessage | None:
        """Coalesce deltas into the last posted message while the app has not taken it yet."""
        kind = m.AssistantText if isinstance(sub, TextDelta) else m.AssistantThinking
        open_ = self._open
        delta = clean(sub.delta)
        if (
            open_ is not None
            and not open_.taken
            and type(open_) is kind
            and open_.index == sub.content_index
        ):
            open_.delta += delta
            return None
        self._open = kind(sub.content_index, delta)
        return self._open

    def __call__(self, event: ShellEvent) -> None:
        """Handle one event (the shell listener)."""
        message = self.convert(event)
        if message is not None:
            self.post(message)

    def convert(self, event: ShellEvent) -> UiMessage | None:  # noqa: C901, PLR0912 - one branch per agent event type, the hot one first
        """The Textual message for ``event`` (None for events the UI ignores)."""
        if isinstance(event, MessageUpdate):  # hot path first
            sub = event.assistant_message_event
            if isinstance(sub, TextDelta | ThinkingDelta):
                self.streaming_chars += len(sub.delta)
                return self._delta(sub)
            if isinstance(sub, ToolCallDelta):
                self.streaming_chars += len(sub.delta)
            return None
        self._open = None  # any other event closes coalescing: order must be kept
        match event:
            case MessageStart(message=UserMessage() as user):
                self._users_in_run += 1
                # The first user message of a run is the prompt; later ones were queued.
                return m.UserMessageShown(clean(user.text), injected=self._users_in_run > 1)
            case MessageStart():
                return None
            case MessageEnd(message=AssistantMessage() as answer):
                note = answer.refusal if answer.stop_reason == "refusal" else answer.error_message
                return m.AssistantEnded(answer.stop_reason, clean(note) if note else None)
            case MessageEnd():
                return None
            case ToolExecutionStart(tool_call_id=call_id, tool_name=name, args=args):
                title = clean(self.describe(name, args))
                return m.ToolStarted(call_id, clean(name), clean_value(args), title)
            case ToolExecutionUpdate(tool_call_id=call_id, partial_result=partial):
                return m.ToolProgress(call_id, clean(partial.text))
            case ToolExecutionEnd(tool_call_id=call_id, tool_name=name, result=result):
                details = clean_value(result.details)
                text = shown_result(name, result.text, result.details)  # no [agent …] twice
                return m.ToolFinished(call_id, clean(name), clean(text), event.is_error, details)
            case TurnStart():
                self._turn_open = True
                return m.TurnStarted()
            case TurnEnd(message=answer):
                self._turn_open = False
                usage = answer.usage
                self.run_output_tokens += usage.output
                self.streaming_chars = 0
                return m.TurnEnded(
                    tools=[clean(call.name) for call in answer.tool_calls],
                    input_tokens=usage.input + usage.cache_read,
                    output_tokens=usage.output,
                )
            case AgentStart():
                self.run_output_tokens = self.streaming_chars = 0
                self._users_in_run = 0
                self._turn_open = False
                return m.RunStarted()
            case AgentEnd():
                return self._run_ended(event)
            case MessageUpdate():
                return None  # handled above
            case _:  # the shell's own events (exhaustively matched there)
                return self._shell_event(event)

    @property
    def streamed_tokens(self) -> int:
        """Output tokens of this run so far (the streaming message estimated at 4 chars a token)."""
        return self.run_output_tokens + self.streaming_chars // 4

    def _run_ended(self, event: AgentEnd) -> m.RunEnded:
        self.runs_ended += 1
        error = event.error_message
        if self._turn_open and error is None:  # agent_end inside a turn: the loop broke off
            error = "the run ended unexpectedly"
        self._turn_open = False
        return m.RunEnded(clean(error) if error else None)

    def _shell_event(self, event: OwnEvent) -> UiMessage | None:  # noqa: C901, PLR0912 - one case per event type: the match is exhaustive (assert_never)
        match event:
            case Notice(text=text, level=level):
                return m.NoticeShown(clean(text), level)
            case AutoRetryStart():
                return m.RetryShown(
                    clean(
                        f"Retrying ({event.attempt}/{event.max_attempts}) in "
                        f"{event.delay_ms / 1000:.1f}s: {event.error_message}"
                    ),
                    delay_s=event.delay_ms / 1000,
                )
            case AutoRetryEnd(success=True, attempt=attempt):
                return m.RetryShown(f"Retry {attempt} succeeded.")
            case AutoRetryEnd(final_error="aborted"):
                return m.RetryShown("Retry cancelled.")
            case AutoRetryEnd():
                # Gave up: the turn's error line already says so ("gave up after 3 retries").
                return m.RetryShown("")
            case CompactionStart(reason=reason):
                return m.NoticeShown(f"Compacting context ({reason})…")
            case CompactionEnd(error_message=str() as error):
                return m.NoticeShown(clean(f"Compaction failed: {error}"), "error")
            case CompactionEnd(tokens_before=before, tokens_after=after, summary=summary):
                title = f"Compacted context: {before} → {after} tokens (summary inside)"
                return m.CompactionShown(title, clean(summary or ""))
            case SessionChanged(reason=reason):
                return m.SessionSwitched(reason)
            case ModelChanged():
                return m.StatusChanged()
            case QueueChanged(items=items):
                return m.QueueShown([(i.id, clean(i.text), i.kind) for i in items])
            case QueueReturned(items=items):
                return m.QueueGivenBack([i.text for i in items])
            case ShellStateChanged(state=state):
                return m.ShellBusy(state)
            case PermissionRequested():
                return m.ApprovalRequested(
                    event.id,
                    clean(event.tool_name),
                    clean(event.title),
                    clean(event.reason),
                    clean(event.preview),
                    list(event.options),
                    clean_value(event.rules),
                    clean(event.question or ""),
                    clean_value(event.labels or {}),
                )
            case PermissionResolved(id=request_id):
                return m.ApprovalClosed(request_id)
            case DialogRequested():
                return dialog_shown(event)
            case DialogResolved(id=request_id):
                return m.DialogClosed(request_id)
            case Reloaded():
                return m.ExtensionsReloaded()
            case CustomMessageShown(view=view, custom_type=kind, expanded=expanded):
                return m.CustomMessageDrawn(view, kind, expanded)  # cleaned and capped by the shell
            case UiChanged(slot=slot, key=key, text=text, lines=lines):
                shown = [_clean(line) for line in lines] if lines is not None else None
                return m.UiPieceChanged(
                    slot, key, _clean(text) if text is not None else None, shown
                )
            case PermissionModeChanged() | McpStatusChanged() | LspStatusChanged():
                return m.StatusChanged()  # the footer: the mode, MCP and language servers
            case DiagnosticsReported():
                # Drawn under the edit's diff from the result's details["diagnostics"] (the
                # same data, which a resumed session has too): ToolFinished carries them.
                return None
            case BackgroundShellsChanged():
                return m.StatusChanged()  # the footer counts the running ones
            case PermissionModeChanged() | McpStatusChanged():
                return m.StatusChanged()  # the footer shows the mode and the MCP servers
            case (
                BackgroundShellsChanged()
                | GoalChanged()
                | SchedulesChanged()
                | BackgroundAgentChanged()
            ):
                return m.StatusChanged()  # the footer: running shells, the goal, loops, agents
            case ScheduleFired():
                return m.NoticeShown(clean(event.line()), "info")
            case GoalChecked():
                return m.NoticeShown(clean(event.line()), "info" if event.met else "warning")
            case MonitorDelivered():
                return None  # drawn when the model receives it (the user message's block)
            case (
                TodoUpdated()
                | SubagentStarted()
                | SubagentEvent()
                | SubagentEnded()
                | BudgetExceeded()
                | StructuredOutput()
            ):
                return self.agents.convert(event)
            case _:
                assert_never(event)


def _clean(text: str) -> str:
    """Text that arrives whole (not streamed): escape sequences go whole, then the rest."""
    return clean(clean_whole(text))


def dialog_shown(event: DialogRequested) -> m.DialogShown:
    """The modal's message for a dialog (text cleaned; the options' own labels kept aside)."""
    return m.DialogShown(
        event.id,
        event.kind,
        _clean(event.title),
        _clean(event.message or ""),
        [(_clean(o.label), _clean(o.description or "")) for o in event.options],
        [o.label for o in event.options],
        event.multiple,
        event.allow_other,
        _clean(event.placeholder or ""),
        _clean(event.default or ""),
        _clean(event.source or ""),
        event.view,
    )
