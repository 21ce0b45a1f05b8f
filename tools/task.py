"""The ``task`` tool: delegate a self-contained job to a sub-agent with its own context.

The tool runs nothing itself: the shell passes a :class:`TaskRunner` that builds the child
agent (its profile's prompt, a restricted tool set, maybe another model), runs it and returns
its final answer and cost. Several ``task`` calls in one turn run in parallel (the loop runs a
batch's calls concurrently); an abort of the parent's run reaches the children through
``cancel``.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Protocol

from msgspec import Meta

from agent_core import AbortSignal, ToolArguments, ToolBase, ToolError, ToolResult, first_line
from agent_core.tool import OnToolUpdate

GENERAL_PURPOSE = "general-purpose"


class TaskArgs(ToolArguments):
    """Arguments of the task tool."""

    description: Annotated[
        str,
        Meta(
            min_length=1, max_length=200, description="A short (3-5 word) label shown to the user"
        ),
    ]
    prompt: Annotated[
        str,
        Meta(
            min_length=1,
            description="The complete task for the sub-agent. It sees nothing of this conversation: give "
            "every detail it needs and say exactly what it should report back",
        ),
    ]
    subagent_type: Annotated[
        str, Meta(description="Which agent to run: a name from the list in this tool's description")
    ] = GENERAL_PURPOSE
    worktree: Annotated[
        bool,
        Meta(
            description="Give the agent a git worktree of its own (a separate checkout on a new branch), so "
            "agents working in parallel do not edit the same files; its report says what it "
            "changed and the branch to merge"
        ),
    ] = False
    background: Annotated[
        bool,
        Meta(
            description="Run it in the background: the call returns the agent's id at once and you keep "
            "working; its final report arrives later as a message. Use it for long, independent "
            "work; do not wait or poll for it"
        ),
    ] = False


@dataclass(frozen=True)
class AgentProfileInfo:
    """What the model reads about one agent it may pick."""

    name: str
    description: str


@dataclass(frozen=True)
class TaskRequest:
    """One delegated job, as the runner receives it."""

    tool_call_id: str
    agent: str
    description: str
    prompt: str
    worktree: bool = False


@dataclass
class TaskOutcome:
    """What a child run produced.

    ``usage`` holds ``input``, ``output``, ``cacheRead``, ``cacheWrite`` (tokens) and ``cost``
    (US dollars) summed over the child's model calls. ``error`` is set when the child failed.
    """

    answer: str
    agent: str
    model: str
    turns: int = 0
    usage: dict[str, float] = field(default_factory=dict)
    error: str | None = None


class TaskRunner(Protocol):
    """Runs a child agent (implemented by the shell)."""

    async def __call__(
        self, request: TaskRequest, cancel: AbortSignal, on_update: OnToolUpdate | None
    ) -> TaskOutcome:
        """Run ``request`` to its end (honouring ``cancel``); raise ToolError for a bad request."""
        ...

    def spawn(self, request: TaskRequest) -> str:
        """Start ``request`` in the background and return its id at once (its report reaches
        the parent as a message when it ends); raise ToolError when it cannot start."""
        ...


def usage_line(outcome: TaskOutcome) -> str:
    """``[agent general-purpose · openai/gpt-5 · 3 turns · ↑1200 ↓300 tokens · $0.0123]``."""
    usage = outcome.usage
    tokens_in = int(usage.get("input", 0) + usage.get("cacheRead", 0))
    turns = f"{outcome.turns} turn{'s' if outcome.turns != 1 else ''}"
    return (
        f"[agent {outcome.agent} · {outcome.model} · {turns} · ↑{tokens_in} "
        f"↓{int(usage.get('output', 0))} tokens · ${usage.get('cost', 0.0):.4f}]"
    )


class TaskTool(ToolBase):
    """Run a sub-agent on a self-contained task and return its final answer."""

    name = "task"
    summary = "Delegate a self-contained task to a sub-agent (own context; parallel when batched)"
    guideline = (
        "Use task for broad searches or independent sub-tasks whose details you do not need in "
        "your context; several task calls in one response run in parallel."
    )
    parameters = TaskArgs

    def __init__(
        self, profiles: Sequence[AgentProfileInfo] = (), runner: TaskRunner | None = None
    ) -> None:
        self.runner = runner
        known = list(profiles)
        if not any(p.name == GENERAL_PURPOSE for p in known):
            known.insert(0, AgentProfileInfo(GENERAL_PURPOSE, _GENERAL))
        self.profiles = known
        lines = "\n".join(f"- {p.name}: {first_line(p.description, 300)}" for p in known)
        self.description = (
            "Launch a sub-agent that works on a task on its own and returns one final report. "
            "It starts with an empty context (only your prompt), has its own tool set, and its "
            "intermediate steps do not fill your context. Use it for open-ended searches across "
            "a codebase, research, or independent parts of a job; launch several in one "
            "response to run them in parallel. Not for a single file read or a known location: "
            "use read, grep or find directly. The result is the sub-agent's final message, "
            "which the user does not see: summarise what matters. With background: true it "
            "returns at once and its report arrives later as a message.\n\n"
            f"Available agents (subagent_type):\n{lines}"
        )

    def title(self, args: Mapping[str, Any]) -> str:
        """``description (agent)``."""
        if not isinstance(args, Mapping):
            return ""
        label = args.get("description")
        kind = args.get("subagent_type")
        head = first_line(label, 120) if isinstance(label, str) else ""
        if isinstance(kind, str) and kind.strip() and kind != GENERAL_PURPOSE:
            return f"{head} ({first_line(kind, 60)})".strip()
        return head

    async def execute(
        self,
        tool_call_id: str,
        args: TaskArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Run the child; its answer (plus what it cost) is the result."""
        if cancel.aborted:
            raise ToolError("Aborted")
        if self.runner is None:
            raise ToolError("Sub-agents are not available here; do the task yourself.")
        names = [p.name for p in self.profiles]
        kind = args.subagent_type
        if kind not in names:
            # A plugin's agent is "plugin:agent"; its own files call it by the bare name.
            namespaced = [n for n in names if n.endswith(":" + kind)]
            if len(namespaced) != 1:
                raise ToolError(f"Unknown subagent_type {kind!r}. Available: {', '.join(names)}.")
            kind = namespaced[0]
        request = TaskRequest(tool_call_id, kind, args.description, args.prompt, args.worktree)
        if args.background:
            child_id = self.runner.spawn(request)
            return ToolResult.of_text(
                f"Started background agent {child_id} ({kind}: {args.description}). It works on "
                "its own; its report will arrive as a message when it finishes. Go on with other "
                "work, and do not wait or poll for it.",
                details={"agent": kind, "background": True, "agentId": child_id},
            )
        outcome = await self.runner(request, cancel, on_update)
        details: dict[str, Any] = {
            "agent": outcome.agent,
            "model": outcome.model,
            "turns": outcome.turns,
            "usage": dict(outcome.usage),
        }
        if outcome.error is not None:
            raise ToolError(f"The sub-agent failed: {outcome.error} {usage_line(outcome)}")
        answer = outcome.answer.strip() or "(the sub-agent ended without a final answer)"
        return ToolResult.of_text(f"{answer}\n\n{usage_line(outcome)}", details=details)


_GENERAL = (
    "General-purpose agent for researching complex questions, searching for code and "
    "carrying out multi-step tasks with the same tools you have (except task and todo_write)."
)


def create_task_tool(
    cwd: str | Path,
    profiles: Sequence[AgentProfileInfo] = (),
    runner: TaskRunner | None = None,
) -> TaskTool:
    """A task tool listing ``profiles`` (``cwd`` unused: the runner knows the workspace)."""
    return TaskTool(profiles, runner)
