"""Shell events of the agent tools: the todo list, sub-agents, budgets, structured output.

Their wire shapes (camelCase, as JSON mode and RPC write them) are documented in
``docs/agent-tools.md`` ("Events"). ``todo_updated`` carries the whole list each time, so a
client (the ACP front end's ``plan`` update: content, status, priority ``medium``) needs no other
state.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from agent_core.events import AgentEvent
from agent_core.messages import WireModel
from agent_core.records import field


class TodoEntry(WireModel):
    """One item of the model's plan."""

    content: str
    status: Literal["pending", "in_progress", "completed"]
    active_form: str | None = None


class TodoUpdated(WireModel, tag_field="type", tag="todo_updated"):
    """The todo list changed (``todo_write``, or a session was resumed, started or switched)."""

    type: ClassVar[str] = "todo_updated"
    todos: list[TodoEntry] = field(default_factory=list)


class SubagentStarted(WireModel, tag_field="type", tag="subagent_start"):
    """A ``task`` call started a sub-agent; ``task_id`` is that call's tool call id."""

    type: ClassVar[str] = "subagent_start"
    task_id: str
    agent: str
    description: str = ""
    model: str = ""
    background: bool | None = None
    """True: started with ``background: true`` (the ``task`` call has already returned)."""


class SubagentEvent(WireModel, tag_field="type", tag="subagent_event"):
    """One event of a running sub-agent's own loop (its turns, text, tool calls)."""

    type: ClassVar[str] = "subagent_event"
    task_id: str
    agent: str
    event: AgentEvent


class SubagentEnded(WireModel, tag_field="type", tag="subagent_end"):
    """A sub-agent finished: its answer, turns and usage (``cost`` in US dollars), or its error."""

    type: ClassVar[str] = "subagent_end"
    task_id: str
    agent: str
    model: str = ""
    answer: str = ""
    turns: int = 0
    usage: dict[str, float] = field(default_factory=dict)
    error_message: str | None = None


BackgroundStatus = Literal["running", "done", "failed", "aborted", "interrupted"]


class BackgroundAgentInfo(WireModel, kw_only=True):
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
    usage: dict[str, float] = field(default_factory=dict)
    last_tool: str = ""
    started_at: str = ""
    ended_at: str | None = None
    error: str | None = None
    delivered: bool = False
    """Its report (or the news that it stopped) has been queued for the parent."""


class BackgroundAgentChanged(WireModel, tag_field="type", tag="background_agent"):
    """A background sub-agent started, took a turn, called a tool, spent tokens or ended."""

    type: ClassVar[str] = "background_agent"
    agent: BackgroundAgentInfo


class BudgetExceeded(WireModel, tag_field="type", tag="budget_exceeded"):
    """``--max-turns`` or ``--max-cost`` stopped the run before its next model call, or a goal
    before its next round (``rounds``: ``goal.maxRounds``)."""

    type: ClassVar[str] = "budget_exceeded"
    budget: Literal["turns", "cost", "rounds"]
    limit: float
    used: float
    message: str


class StructuredOutput(WireModel, tag_field="type", tag="structured_output"):
    """``--output-schema``: the final answer and whether it matched (``value`` when it did)."""

    type: ClassVar[str] = "structured_output"
    valid: bool
    value: Any = None
    errors: list[str] = field(default_factory=list)
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
