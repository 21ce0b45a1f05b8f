"""Shell-level events, delivered to front ends beside the agent_core events."""

from __future__ import annotations

from typing import Literal

from agent_core.messages import WireModel


class AutoRetryStart(WireModel):
    """A transient provider error is being retried after ``delay_ms``."""

    type: Literal["auto_retry_start"] = "auto_retry_start"
    attempt: int
    max_attempts: int
    delay_ms: int
    error_message: str


class AutoRetryEnd(WireModel):
    """A retried request finally succeeded or gave up."""

    type: Literal["auto_retry_end"] = "auto_retry_end"
    success: bool
    attempt: int
    final_error: str | None = None


class CompactionStart(WireModel):
    """Older messages are being summarised."""

    type: Literal["compaction_start"] = "compaction_start"
    reason: Literal["threshold", "overflow", "manual"]


class CompactionEnd(WireModel):
    """Compaction finished (or failed: ``error_message``)."""

    type: Literal["compaction_end"] = "compaction_end"
    reason: Literal["threshold", "overflow", "manual"]
    summary: str | None = None
    tokens_before: int = 0
    tokens_after: int = 0
    will_retry: bool = False
    aborted: bool = False
    error_message: str | None = None


class Notice(WireModel):
    """Something the user should read (warnings while loading, command output...)."""

    type: Literal["notice"] = "notice"
    level: Literal["info", "warning", "error"] = "info"
    text: str


class SessionChanged(WireModel):
    """The shell switched to another session (``/new``, resume, fork, branch)."""

    type: Literal["session_changed"] = "session_changed"
    session_id: str
    path: str | None = None
    reason: Literal["new", "resume", "fork", "tree"] = "new"


class ModelChanged(WireModel):
    """The active model or thinking level changed."""

    type: Literal["model_changed"] = "model_changed"
    model: str
    thinking: str
