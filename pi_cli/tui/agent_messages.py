"""Textual messages for the agent tools' events: the todo list and sub-agents (plain data; the
sub-agents' ones are the transcript's only and do not bubble)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.message import Message


@dataclass
class TodosShown(Message):
    """The todo list changed: show it."""

    items: list[tuple[str, str]] = field(default_factory=list)
    """``(status, text)`` per item, in order (status: pending, in_progress, completed; the text
    of an item in progress is its active form when it has one)."""


@dataclass
class SubagentOpened(Message, bubble=False):
    """A ``task`` call started a sub-agent: open its panel inside the call's tool block."""

    task_id: str
    """The task call's tool call id."""
    agent: str
    """The agent's profile name."""
    description: str = ""
    """The task's short label."""
    model: str = ""
    """The model the sub-agent runs on."""


@dataclass
class SubagentMessage(Message, bubble=False):
    """One message of a sub-agent's own run, for its panel."""

    task_id: str
    """The task call's tool call id."""
    inner: Any
    """The message a :class:`~pi_cli.tui.bridge.Bridge` made of the sub-agent's event."""


@dataclass
class SubagentClosed(Message, bubble=False):
    """A sub-agent finished: write its summary title and fold its panel."""

    task_id: str
    """The task call's tool call id."""
    summary: str = ""
    """Turns, tokens and cost."""
    error: str | None = None
    """Why it failed, if it did."""
