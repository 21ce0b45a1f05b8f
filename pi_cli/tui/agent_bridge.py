"""The bridge's part for the agent tools' events: todos, sub-agents, budgets, schema verdicts.

A sub-agent's own events go through a :class:`~pi_cli.tui.bridge.Bridge` of its own (so they
are cleaned and coalesced like the main run's), whose messages are wrapped for its panel.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, assert_never

from textual.message import Message as UiMessage

from pi_cli.shell import (
    AgentToolEvent,
    BackgroundAgentChanged,
    BudgetExceeded,
    StructuredOutput,
    SubagentEnded,
    SubagentEvent,
    SubagentStarted,
    TodoUpdated,
    subagent_summary,
)
from pi_cli.tui import agent_messages as am
from pi_cli.tui import messages as m
from pi_cli.tui.messages import clean

Post = Callable[[UiMessage], Any]
Listener = Callable[[Any], None]


class AgentBridge:
    """Converts the agent tools' events.

    Args:
        post: where the messages go (the main bridge's ``post``).
        child_bridge: makes the bridge of one sub-agent, given where its messages go (a
            :class:`~pi_cli.tui.bridge.Bridge`; passed in, so this module needs no import of it).
    """

    def __init__(self, post: Post, child_bridge: Callable[[Post], Listener]) -> None:
        self.post = post
        self.child_bridge = child_bridge
        self.children: dict[str, Listener] = {}

    def convert(self, event: AgentToolEvent) -> UiMessage | None:
        """The message for ``event`` (a sub-agent's events are posted by its own bridge)."""
        match event:
            case TodoUpdated(todos=todos):
                return am.TodosShown(
                    [
                        (
                            t.status,
                            clean(
                                t.active_form
                                if t.status == "in_progress" and t.active_form
                                else t.content
                            ),
                        )
                        for t in todos
                    ]
                )
            case SubagentStarted():
                self._child(event.task_id)
                return am.SubagentOpened(
                    event.task_id, clean(event.agent), clean(event.description), clean(event.model)
                )
            case SubagentEvent(task_id=task_id, event=inner):
                self._child(task_id)(inner)
                return None
            case SubagentEnded():
                self.children.pop(event.task_id, None)
                return am.SubagentClosed(event.task_id, subagent_summary(event), _error(event))
            case BackgroundAgentChanged():
                return None  # the bridge turns it into the footer's count
            case BudgetExceeded(message=message):
                return m.NoticeShown(clean(message), "warning")
            case StructuredOutput(valid=valid, errors=errors):
                text = "The answer matches the schema." if valid else "; ".join(errors)
                return m.NoticeShown(clean(text), "info" if valid else "error")
            case _:
                assert_never(event)

    def _child(self, task_id: str) -> Listener:
        child = self.children.get(task_id)
        if child is None:
            post = self.post

            def wrap(message: UiMessage) -> None:
                post(am.SubagentMessage(task_id, message))

            child = self.child_bridge(wrap)
            self.children[task_id] = child
        return child


def _error(event: SubagentEnded) -> str | None:
    return clean(event.error_message) if event.error_message else None
