"""Bridge: agent_core and shell events -> the Textual messages of :mod:`pi_cli.tui.messages`.

Events arrive synchronously on the asyncio loop thread (Textual's loop); the bridge converts each
into a small message and posts it to the app, which keeps their order. Only this module knows
the event classes. It is also the one place where text from the model, tools and files is
cleaned of terminal control characters (:func:`~pi_cli.tui.messages.clean`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.message import Message

from agent_core import (
    AgentEnd,
    AgentStart,
    AssistantMessage,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    TextDelta,
    ThinkingDelta,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    TurnEnd,
    TurnStart,
    UserMessage,
)
from pi_cli.shell.events import (
    AutoRetryEnd,
    AutoRetryStart,
    CompactionEnd,
    CompactionStart,
    ModelChanged,
    Notice,
    SessionChanged,
)
from pi_cli.tui import messages as m
from pi_cli.tui.messages import clean, clean_value


class Bridge:
    """Converts events and posts them with ``post`` (normally ``App.post_message``)."""

    def __init__(
        self, post: Callable[[Message], Any], agent_error: Callable[[], str | None] = lambda: None
    ) -> None:
        self.post = post
        self.agent_error = agent_error
        self._users_in_run = 0
        self.runs_ended = 0  # agent_end events converted (the app counts the ones it rendered)
        self._open: m.AssistantText | m.AssistantThinking | None = None
        self._turn_open = False  # turn_start seen without its turn_end (a loop crash skips it)

    def _delta(self, sub: TextDelta | ThinkingDelta) -> Message | None:
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

    def __call__(self, event: Any) -> None:
        """Handle one event (the shell listener)."""
        message = self.convert(event)
        if message is not None:
            self.post(message)

    def convert(self, event: Any) -> Message | None:
        """The Textual message for ``event`` (None for events the UI ignores)."""
        if isinstance(event, MessageUpdate):  # hot path first
            sub = event.assistant_message_event
            if isinstance(sub, TextDelta | ThinkingDelta):
                return self._delta(sub)
            return None
        self._open = None  # any other event closes coalescing: order must be kept
        if isinstance(event, MessageStart):
            if isinstance(event.message, UserMessage):
                self._users_in_run += 1
                # The first user message of a run is the prompt; later ones were queued.
                return m.UserMessageShown(
                    clean(event.message.text), injected=self._users_in_run > 1
                )
            return None
        if isinstance(event, MessageEnd):
            message = event.message
            if isinstance(message, AssistantMessage):
                error = clean(message.error_message) if message.error_message else None
                return m.AssistantEnded(message.stop_reason, error)
            return None
        if isinstance(event, ToolExecutionStart):
            return m.ToolStarted(
                event.tool_call_id, clean(event.tool_name), clean_value(event.args)
            )
        if isinstance(event, ToolExecutionUpdate):
            return m.ToolProgress(event.tool_call_id, clean(event.partial_result.text))
        if isinstance(event, ToolExecutionEnd):
            result = event.result
            return m.ToolFinished(
                event.tool_call_id,
                clean(event.tool_name),
                clean(result.text),
                event.is_error,
                clean_value(result.details),
            )
        if isinstance(event, TurnStart):
            self._turn_open = True
            return m.TurnStarted()
        if isinstance(event, TurnEnd):
            self._turn_open = False
            usage = event.message.usage
            return m.TurnEnded(
                tools=[clean(call.name) for call in event.message.tool_calls],
                input_tokens=usage.input + usage.cache_read,
                output_tokens=usage.output,
            )
        if isinstance(event, AgentStart):
            self._users_in_run = 0
            self._turn_open = False
            return m.RunStarted()
        if isinstance(event, AgentEnd):
            return self._run_ended(event)
        message = self._shell_event(event)
        if isinstance(message, m.NoticeShown):
            message.text = clean(message.text)
        return message

    def _run_ended(self, event: AgentEnd) -> m.RunEnded:
        self.runs_ended += 1
        error: str | None = None
        if self._turn_open:
            # agent_end inside a turn: the loop crashed (Agent._run reports it with the run's
            # messages, so "no messages" alone does not tell).
            error = self.agent_error() or "the run ended unexpectedly"
        elif not event.messages:
            error = self.agent_error()
        self._turn_open = False
        return m.RunEnded(clean(error) if error else None)

    def _shell_event(self, event: Any) -> Message | None:
        if isinstance(event, Notice):
            return m.NoticeShown(event.text, event.level)
        if isinstance(event, AutoRetryStart):
            return m.NoticeShown(
                f"Retrying ({event.attempt}/{event.max_attempts}) in {event.delay_ms / 1000:.1f}s: "
                f"{event.error_message}",
                "warning",
            )
        if isinstance(event, AutoRetryEnd):
            if event.success:
                return m.NoticeShown(f"Retry {event.attempt} succeeded.")
            return m.NoticeShown(f"Retry gave up: {event.final_error}", "error")
        if isinstance(event, CompactionStart):
            return m.NoticeShown(f"Compacting context ({event.reason})…")
        if isinstance(event, CompactionEnd):
            if event.error_message:
                return m.NoticeShown(f"Compaction failed: {event.error_message}", "error")
            return m.NoticeShown(
                f"Compacted context: {event.tokens_before} → {event.tokens_after} tokens."
            )
        if isinstance(event, SessionChanged):
            return m.SessionSwitched(event.reason)
        if isinstance(event, ModelChanged):
            return m.StatusChanged()
        return None
