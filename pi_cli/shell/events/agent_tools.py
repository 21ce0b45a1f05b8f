"""Shell events of the agent tools: the todo list, sub-agents, budgets, structured output.

Their wire shapes (camelCase, as JSON mode and RPC write them) are documented in
``docs/agent-tools.md`` ("Events"). ``todo_updated`` carries the whole list each time, so a
client (the ACP front end's ``plan`` update: content, status, priority ``medium``) needs no other
state.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from agent_core.events import AgentEvent
from agent_core.messages import WireModel


class TodoEntry(WireModel):
    """One item of the model's plan."""

    content: str
    status: Literal["pending", "in_progress", "completed"]
    active_form: str | None = None


class TodoUpdated(WireModel):
    """The todo list changed (``todo_write``, or a session was resumed, started or switched)."""

    type: Literal["todo_updated"] = "todo_updated"
    todos: list[TodoEntry] = Field(default_factory=list)


class SubagentStarted(WireModel):
    """A ``task`` call started a sub-agent; ``task_id`` is that call's tool call id."""

    type: Literal["subagent_start"] = "subagent_start"
    task_id: str
    agent: str
    description: str = ""
    model: str = ""
    background: bool | None = None
    """True: started with ``background: true`` (the ``task`` call has already returned)."""


class SubagentEvent(WireModel):
    """One event of a running sub-agent's own loop (its turns, text, tool calls)."""

    type: Literal["subagent_event"] = "subagent_event"
    task_id: str
    agent: str
    event: AgentEvent


class SubagentEnded(WireModel):
    """A sub-agent finished: its answer, turns and usage (``cost`` in US dollars), or its error."""

    type: Literal["subagent_end"] = "subagent_end"
    task_id: str
    agent: str
    model: str = ""
    answer: str = ""
    turns: int = 0
    usage: dict[str, float] = Field(default_factory=dict)
    error_message: str | None = None


BackgroundStatus = Literal["running", "done", "failed", "aborted", "interrupted"]


class BackgroundAgentInfo(WireModel):
    """A background sub-agent as ``/agents`` and RPC's ``get_agents`` list it.

    ``status``: ``running``; ``done`` (it reported); ``failed`` (its model or a budget ended
    it with an error); ``aborted`` (the user stopped it); ``interrupted`` (pi quit or was killed
    while it ran). ``usage`` as in :class:`SubagentEnded`; times are ISO 8601 (UTC).
    """

    id: str
    task_id: str = ""
    """The ``task`` call's id: its ``subagent_*`` events carry it."""
    agent: str
    description: str = ""
    model: str = ""
    status: BackgroundStatus = "running"
    turns: int = 0
    usage: dict[str, float] = Field(default_factory=dict)
    last_tool: str = ""
    started_at: str = ""
    ended_at: str | None = None
    error: str | None = None
    delivered: bool = False
    """Its report (or the news that it stopped) has been queued for the parent."""


class BackgroundAgentChanged(WireModel):
    """A background sub-agent started, took a turn, called a tool, spent tokens or ended."""

    type: Literal["background_agent"] = "background_agent"
    agent: BackgroundAgentInfo


class BudgetExceeded(WireModel):
    """``--max-turns`` or ``--max-cost`` stopped the run before its next model call, or a goal
    before its next round (``rounds``: ``goal.maxRounds``)."""

    type: Literal["budget_exceeded"] = "budget_exceeded"
    budget: Literal["turns", "cost", "rounds"]
    limit: float
    used: float
    message: str


class StructuredOutput(WireModel):
    """``--output-schema``: the final answer and whether it matched (``value`` when it did)."""

    type: Literal["structured_output"] = "structured_output"
    valid: bool
    value: Any = None
    errors: list[str] = Field(default_factory=list)
    attempts: int = 1


AgentToolEvent = (
    TodoUpdated
    | SubagentStarted
    | SubagentEvent
    | SubagentEnded
    | BackgroundAgentChanged
    | BudgetExceeded
    | StructuredOutput
)
AGENT_TOOL_EVENT_TYPES: tuple[type[WireModel], ...] = (
    TodoUpdated,
    SubagentStarted,
    SubagentEvent,
    SubagentEnded,
    BackgroundAgentChanged,
    BudgetExceeded,
    StructuredOutput,
)
