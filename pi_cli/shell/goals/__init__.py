"""Goals (``/goal``, ``--goal``): the run goes on after the model stops until a condition holds.

After each run (a **round**) while the goal is ``pursuing``, pi decides whether it holds: the
check command when the user gave one (``--goal-check``, ``/goal --check``: exit 0 = met, run
sandboxed like the bash tool), else a short judging request (:mod:`._judge`). Not met: the
verdict's reason (and the check's output tail) become the next round's prompt. The pursuit ends
``met``, ``unmet`` (the judge found it cannot be reached without the user), ``budget-limited``
(``maxTurns``/``maxCost`` of the input, or ``goal.maxRounds``: a
:class:`~pi_cli.shell.events.agent_tools.BudgetExceeded` says which, so one-shot exits 5) or
``paused`` (Esc, a failed run, ``/goal pause``). All rounds are one input: budgets count across
them, and what the user queues meanwhile joins the next round.

The goal is a ``goal`` entry of the session tree at each change, so ``pi -c`` continues it and
``/tree`` or a branch shows the goal as it was at that point.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from agent_core import AbortSignal, StreamFn
from pi_cli.shell.goals._goals import BudgetView, GoalError, GoalHost, Goals
from pi_cli.shell.goals._state import ENDED, Goal

__all__ = ["Goal", "GoalError", "Goals", "attach_goals"]


class _AgentToolsView(Protocol):
    @property
    def budget(self) -> BudgetView: ...
    async def after_run(self, hooks: Any) -> None: ...


class _Compactor(Protocol):
    async def after_run(self) -> None: ...


class _Policy(Protocol):
    @property
    def signal(self) -> AbortSignal | None: ...


class _Safety(Protocol):
    def tools_env(self) -> Mapping[str, str]: ...


class _Models(Protocol):
    def resolve(self, spec: str | None) -> Any: ...


class _StreamFns(Protocol):
    def keep(self, extra: StreamFn) -> None: ...


class GoalShell(GoalHost, Protocol):
    """The CodingAgent's parts a goal's pursuit is wired to."""

    @property
    def agent_tools(self) -> _AgentToolsView: ...
    @property
    def hooks(self) -> Any: ...
    @property
    def compactor(self) -> _Compactor: ...
    @property
    def policy(self) -> _Policy: ...
    @property
    def safety(self) -> _Safety: ...
    @property
    def models(self) -> _Models: ...
    @property
    def stream_fns(self) -> _StreamFns: ...


def attach_goals(shell: GoalShell) -> Goals:
    """Build the shell's goals: ``/goal``, the session's goal restored, ``--goal`` set."""
    from pi_cli.shell.goals._commands import goal_commands

    judge_choice: list[tuple[StreamFn, str]] = []

    def judge_stream() -> tuple[StreamFn, str]:
        spec = shell.settings.goal.judge_model
        if spec is None:
            return shell.agent.stream_fn, shell.model_id
        if not judge_choice:  # resolved once; closed with the shell's other clients
            choice = shell.models.resolve(spec)
            judge_choice.append((choice.stream_fn, choice.model_id))
            shell.stream_fns.keep(choice.stream_fn)
        return judge_choice[0]

    goals = Goals(
        shell,
        shell.agent_tools.budget,
        lambda: shell.agent_tools.after_run(shell.hooks),
        shell.compactor.after_run,
        lambda: shell.policy.signal,
        shell.safety.tools_env,
        judge_stream,
    )
    shell.commands.register_all(goal_commands(goals))
    shell.subscribe(goals.on_event)
    shell.input_transforms.append(goals.with_directive)
    goals.restore()
    options = shell.options
    if options.goal:
        try:
            goals.set(options.goal, options.goal_check)
        except GoalError as exc:
            from pi_cli.shell.models.setup import ConfigError

            raise ConfigError(f"--goal: {exc}") from None
        goals.announce_with_next_prompt()
    elif options.goal_check:
        from pi_cli.shell.models.setup import ConfigError

        raise ConfigError("--goal-check needs --goal <condition>")
    elif goals.goal is not None and goals.goal.status not in ENDED:
        goal = goals.goal
        shell.notify(f"{goal.line(goals.max_rounds)} (/goal to pause, resume or drop it)")
    return goals
