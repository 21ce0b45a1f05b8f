"""The ``task`` tool's runner: a child :class:`agent_core.Agent` per call, run in the shell.

A child has its own context (only the prompt it was given), its profile's system prompt, a
tool set restricted to the profile's tools (never ``task``, ``todo_write`` or
``exit_plan_mode``: no nested sub-agents), and its profile's model (Claude Code's aliases are
mapped to the configured provider: :mod:`.model_aliases`). Its tool calls go through the
shell's permission gate like the parent's (rules, modes, approvals, hooks). Its events reach the
front ends wrapped in :class:`~pi_cli.shell.events.agent_tools.SubagentEvent`; what it spent counts
against ``--max-cost``. An abort of the parent's run aborts it (through ``cancel``).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from agent_core import (
    AbortSignal,
    Agent,
    AssistantMessage,
    MessageEnd,
    ToolError,
    ToolExecutionStart,
    ToolResult,
    TurnStart,
)
from pi_cli.shell.agent_tools.profiles import AgentProfile
from pi_cli.shell.context import acting_agent
from pi_cli.shell.events.agent_tools import SubagentEnded, SubagentEvent, SubagentStarted
from pi_cli.shell.models.aliases import is_alias, resolve_alias
from pi_cli.shell.models.setup import ConfigError, ModelResolver, aclose_stream_fn, spec_provider

if TYPE_CHECKING:
    from pathlib import Path

    from agent_core import StreamFn, Tool
    from agent_core.providers import ResolvedModel
    from agent_core.tool import OnToolUpdate
    from pi_cli.shell.agent_tools._budget import BudgetGuard
    from pi_cli.shell.config.settings import Settings
    from pi_cli.shell.events import ShellEvent
    from tools.task import TaskOutcome, TaskRequest

DEFAULT_MAX_TURNS = 50
READ_ONLY = ("read", "grep", "find", "ls")
"""Tools a profile may get even when the parent's set lacks them (they only read)."""
SUBAGENT_NOTE = (
    "You are a sub-agent: another agent gave you the task above and will read only your final "
    "message. Work on your own until the task is done, then end with a complete, concise "
    "report of what you found or did (paths, names, results); do not ask questions."
)


class SubagentShell(Protocol):
    """What the runner uses of the shell."""

    @property
    def cwd(self) -> Path: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def agent(self) -> Agent: ...
    @property
    def tools(self) -> list[Tool]: ...
    @property
    def model_id(self) -> str: ...
    @property
    def resolved_model(self) -> ResolvedModel | None: ...
    @property
    def thinking(self) -> str: ...
    @property
    def sandbox(self) -> Any: ...
    @property
    def permissions(self) -> Any: ...
    @property
    def safety(self) -> Any: ...
    def emit(self, event: ShellEvent) -> None: ...
    def notify(self, text: str, level: Any = "info") -> None: ...


class Spawner(Protocol):
    """Starts background children (:class:`._background.BackgroundAgents`)."""

    def spawn(self, request: TaskRequest) -> str: ...


@dataclass
class ChildRun:
    """A built child: its agent, what watches it, its model."""

    agent: Agent
    watch: _ChildWatch
    stream_fn: StreamFn
    model_id: str
    worktree: Any = None  # a ChildWorktree (._child_worktree) when it has its own


class SubagentRunner:
    """Runs ``task`` calls (it is the task tool's :class:`~tools.task.TaskRunner`)."""

    def __init__(
        self,
        shell: SubagentShell,
        models: ModelResolver,
        profiles: list[AgentProfile],
        budget: BudgetGuard,
    ) -> None:
        self.shell = shell
        self.models = models
        self.profiles = {p.name: p for p in profiles}
        self.budget = budget
        self._warned: set[str] = set()
        self.background: Spawner | None = None  # the shell's background agents (._background)

    async def __call__(
        self, request: TaskRequest, cancel: AbortSignal, on_update: OnToolUpdate | None
    ) -> TaskOutcome:
        """Run one child to its end and report its answer and cost."""
        return await self.run(request, self.build(request, on_update), cancel)

    def spawn(self, request: TaskRequest) -> str:
        """Start a background child (see :mod:`._background`); its id."""
        assert self.background is not None, "attached with the agent tools"
        return self.background.spawn(request)

    def build(self, request: TaskRequest, on_update: OnToolUpdate | None) -> ChildRun:
        """The child agent for ``request`` (not started; ToolError for an unusable model)."""
        from tools import AGENT_TOOL_NAMES

        profile = self.profiles.get(request.agent)
        parent = self.shell.agent
        tools = self._tools(profile, AGENT_TOOL_NAMES)
        stream_fn, model_id, resolved = self._model(profile)
        tree = None
        prompt = self._system_prompt(profile, parent.system_prompt)
        if request.worktree:  # its own checkout: made a workspace folder, tools made over it
            from pi_cli.shell.agent_tools._child_worktree import open_child_worktree, worktree_tools

            tree = open_child_worktree(self.shell.cwd)
            self.shell.permissions.engine.workspace.add(tree.path)
            env = self.shell.safety.tools_env()
            tools = worktree_tools(tools, tree.cwd, env, self.shell.sandbox)
            prompt += (
                f"\n\nYou work in your own git worktree {tree.cwd} (branch {tree.branch}), not "
                f"in {self.shell.cwd}: use paths inside it. Leave your changes there (commit them "
                "if asked); your report is followed by what you changed."
            )
        child = Agent(
            stream_fn,
            model=model_id,
            system_prompt=prompt,
            tools=tools,
            thinking=self.shell.thinking,
            tool_execution=self.shell.settings.tool_execution,
        )
        ModelResolver.identify(child, resolved)
        child.before_tool_call = parent.before_tool_call  # the same permission gate and hooks
        child.after_tool_call = parent.after_tool_call
        limit = self.shell.settings.subagents.max_turns or DEFAULT_MAX_TURNS
        if self.budget.max_turns is not None:
            limit = min(limit, self.budget.max_turns)
        watch = _ChildWatch(self, request.tool_call_id, request.agent, tools, on_update)
        child.subscribe(watch)
        child.should_stop = lambda: watch.turns >= limit or self.budget.over_cost()
        return ChildRun(child, watch, stream_fn, model_id, tree)

    async def run(
        self, request: TaskRequest, built: ChildRun, cancel: AbortSignal, label: str = ""
    ) -> TaskOutcome:
        """Run a built child to its end (its start and end events around it); ``label`` names
        a background child (its approvals say it)."""
        from tools.task import TaskOutcome

        child, watch, model_id = built.agent, built.watch, built.model_id
        task_id, name = watch.task_id, request.agent
        self.shell.emit(
            SubagentStarted(
                task_id=task_id,
                agent=name,
                description=request.description,
                model=model_id,
                background=bool(label) or None,
            )
        )
        remove = cancel.on_abort(child.abort)
        acting = acting_agent.set(label or f"sub-agent {name}")
        error: str | None = "aborted"
        answer = ""
        try:
            await child.prompt(request.prompt)
            last = next(
                (m for m in reversed(child.state.messages) if isinstance(m, AssistantMessage)),
                None,
            )
            answer = last.text if last is not None else ""
            error = None
            if last is not None and last.stop_reason in ("error", "aborted"):
                error = last.error_message or last.stop_reason
            elif child.state.error:
                error = child.state.error
        finally:
            acting_agent.reset(acting)
            remove()
            if built.worktree is not None:  # what it left there follows its answer
                from pi_cli.shell.agent_tools._child_worktree import worktree_report

                answer = f"{answer}\n\n{worktree_report(built.worktree)}".strip()
            if built.stream_fn is not self.shell.agent.stream_fn:
                await aclose_stream_fn(built.stream_fn)
            self.shell.emit(
                SubagentEnded(
                    task_id=task_id,
                    agent=name,
                    model=model_id,
                    answer=answer,
                    turns=watch.turns,
                    usage=dict(watch.usage),
                    error_message=error,
                )
            )
        return TaskOutcome(answer, name, model_id, watch.turns, dict(watch.usage), error)

    def _tools(self, profile: AgentProfile | None, never: frozenset[str]) -> list[Tool]:
        """The parent's tools the profile names (all but the agent tools when it names none);
        a read-only search tool it names is made for it even when the parent has none."""
        own = [t for t in self.shell.tools if t.name not in never]
        if profile is None or profile.tools is None:
            return own
        chosen = [t for t in own if t.name in profile.tools]
        missing = [n for n in profile.tools if n in READ_ONLY and n not in {t.name for t in own}]
        if missing:
            from tools import create_tools

            chosen += create_tools(missing, self.shell.cwd)
        return chosen

    def _model(self, profile: AgentProfile | None) -> tuple[StreamFn, str, ResolvedModel | None]:
        """(stream function, model id, resolved model) for the profile's model."""
        parent = self.shell.agent
        current = (self.shell.model_id, self.shell.resolved_model)
        wanted = (profile.model or "inherit").strip() if profile is not None else "inherit"
        if is_alias(wanted):
            provider = current[1].provider if current[1] is not None else ""
            provider = provider or spec_provider(current[0])
            wanted, note = resolve_alias(wanted, provider, current[0])
            if note and note not in self._warned:
                self._warned.add(note)
                self.shell.notify(note, "warning")
        provider_prefix = current[1].provider if current[1] is not None else ""
        if wanted in (current[0], f"{provider_prefix}/{current[0]}"):
            return parent.stream_fn, current[0], current[1]
        try:  # --max-cost: the resolver refuses a model whose price is unknown
            choice = self.models.resolve(wanted)
        except ConfigError as exc:
            raise ToolError(f"The agent's model {wanted!r} cannot be used: {exc}") from None
        return choice.stream_fn, choice.model_id, choice.resolved

    def _system_prompt(self, profile: AgentProfile | None, parent_prompt: str) -> str:
        if profile is None:  # general-purpose: the parent's own prompt
            return f"{parent_prompt}\n\n{SUBAGENT_NOTE}"
        day = _dt.date.today().isoformat()
        return (
            f"{profile.prompt}\n\n{SUBAGENT_NOTE}\n\n"
            f"Current date: {day}\nCurrent working directory: {self.shell.cwd}"
        )


class _ChildWatch:
    """Listens to a sub-agent: counts its turns, adds up its usage (and the budget's cost),
    shows its tool calls as the task's progress and forwards every event to the front ends."""

    def __init__(
        self,
        runner: SubagentRunner,
        task_id: str,
        agent: str,
        tools: list[Tool],
        on_update: OnToolUpdate | None,
    ) -> None:
        self.runner, self.task_id, self.agent = runner, task_id, agent
        self.tools, self.on_update = tools, on_update
        self.turns = 0
        self.last_tool = ""
        self.changed: list[Callable[[], None]] = []  # a background child's live status
        self.usage: dict[str, Any] = {
            "input": 0,
            "output": 0,
            "cacheRead": 0,
            "cacheWrite": 0,
            "cost": 0.0,
        }

    def __call__(self, event: Any) -> None:
        if isinstance(event, TurnStart):
            self.turns += 1
        elif isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            spent = event.message.usage
            self.usage["input"] += spent.input
            self.usage["output"] += spent.output
            self.usage["cacheRead"] += spent.cache_read
            self.usage["cacheWrite"] += spent.cache_write
            self.usage["cost"] += spent.cost.total
            self.runner.budget.add_cost(spent.cost.total)
        elif isinstance(event, ToolExecutionStart):
            title = next((t.title(event.args) for t in self.tools if t.name == event.tool_name), "")
            self.last_tool = f"{event.tool_name} {title}".strip()
            if self.on_update is not None:
                self.on_update(ToolResult.of_text(f"turn {self.turns}: {self.last_tool}"))
        self.runner.shell.emit(SubagentEvent(task_id=self.task_id, agent=self.agent, event=event))
        if isinstance(event, TurnStart | MessageEnd | ToolExecutionStart):
            for listener in self.changed:
                listener()
