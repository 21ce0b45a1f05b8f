"""The session's goal and its pursuit (see :mod:`pi_cli.shell.goals`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from agent_core import AbortSignal, AssistantMessage, Message, StreamFn
from pi_cli.shell.context import ShellContext
from pi_cli.shell.events import SessionChanged, ShellEvent, ShellState
from pi_cli.shell.events.agent_tools import BudgetExceeded
from pi_cli.shell.events.long_running import GoalChanged, GoalChecked, GoalStatus
from pi_cli.shell.goals._state import MAX_CONDITION_CHARS, Goal

if TYPE_CHECKING:
    from pi_cli.shell.commands import SlashCommandRegistry
    from pi_cli.shell.goals._judge import Verdict
    from pi_cli.shell.options import ShellOptions
    from tools.sandbox import Sandbox


class GoalError(ValueError):
    """A goal cannot be set or changed (the message is for the user)."""


class BudgetView(Protocol):
    """The input's budgets, as a goal's pursuit reads them."""

    @property
    def exceeded(self) -> BudgetExceeded | None: ...
    def spent(self) -> BudgetExceeded | None: ...
    def add_cost(self, dollars: float) -> None: ...


class GoalHost(ShellContext, Protocol):
    """What goals use of the shell (the CodingAgent satisfies it)."""

    @property
    def options(self) -> ShellOptions: ...
    @property
    def commands(self) -> SlashCommandRegistry: ...
    @property
    def sandbox(self) -> Sandbox: ...
    @property
    def model_id(self) -> str: ...
    @property
    def input_transforms(self) -> list[Callable[[str], Awaitable[str | None]]]: ...
    @property
    def state(self) -> ShellState: ...
    def subscribe(self, listener: Callable[[ShellEvent], None]) -> Callable[[], None]: ...


class Goals:
    """The session's goal and its pursuit (one per shell).

    Args:
        shell: the shell.
        budget: the input's budgets (``maxTurns``, ``maxCost``).
        after_round: what follows each model run before the verdict (Stop hooks, schema).
        between_rounds: what runs before the next round (compaction when it is due).
        signal: the abort signal of the input being handled.
        tools_env: the environment the check command runs in (the tools').
        judge_stream: the stream function and model of judging requests.
    """

    def __init__(
        self,
        shell: GoalHost,
        budget: BudgetView,
        after_round: Callable[[], Awaitable[None]],
        between_rounds: Callable[[], Awaitable[None]],
        signal: Callable[[], AbortSignal | None],
        tools_env: Callable[[], Mapping[str, str]],
        judge_stream: Callable[[], tuple[StreamFn, str]],
    ) -> None:
        self.shell = shell
        self.budget = budget
        self.after_round = after_round
        self.between_rounds = between_rounds
        self.signal = signal
        self.tools_env = tools_env
        self.judge_stream = judge_stream
        self.goal: Goal | None = None
        self.checking = False
        self._announce = False  # the directive joins the next prompt (--goal)
        self._shown = ""  # the last check's output tail, for the next round's prompt

    @property
    def max_rounds(self) -> int:
        """``goal.maxRounds``."""
        return self.shell.settings.goal.max_rounds

    @property
    def check_timeout(self) -> float:
        """``goal.checkTimeoutS``: how long the check command may run."""
        return self.shell.settings.goal.check_timeout_s

    def event(self) -> GoalChanged:
        """The goal as an event (what a front end shows at start)."""
        info = self.goal.info(self.max_rounds, self.checking) if self.goal else None
        return GoalChanged(goal=info)

    # ------------------------------------------------------------------ changes

    def set(self, condition: str, check: str | None = None) -> Goal:
        """A new goal, pursued from now (replaces any other); raises :class:`GoalError`."""
        condition = condition.strip()
        if not condition:
            raise GoalError("A goal needs a condition: /goal <what must hold>")
        if len(condition) > MAX_CONDITION_CHARS:
            raise GoalError(f"A goal's condition is at most {MAX_CONDITION_CHARS} characters")
        if check is not None and not check.strip():
            raise GoalError("The goal's check command is empty")
        self.goal = Goal.new(condition, check.strip() if check else None)
        self._store()
        return self.goal

    def set_status(self, status: GoalStatus, reason: str = "") -> None:
        """Change the goal's status (stored, announced)."""
        if self.goal is None:
            return
        self.goal.status, self.goal.reason = status, reason
        self._store()

    def resume(self) -> Goal:
        """Pursue the goal again, with ``goal.maxRounds`` rounds more; raises :class:`GoalError`."""
        if self.goal is None:
            raise GoalError("No goal to resume: set one with /goal <condition>")
        self.goal.status, self.goal.rounds, self.goal.reason = "pursuing", 0, ""
        self._store()
        return self.goal

    def edit(self, condition: str, check: str | None) -> Goal:
        """A new condition (and check) for the goal, keeping its id and rounds."""
        if self.goal is None:
            raise GoalError("No goal to edit: set one with /goal <condition>")
        goal, rounds, status = self.goal, self.goal.rounds, self.goal.status
        self.set(condition, check if check is not None else goal.check)
        self.goal.id, self.goal.rounds = goal.id, rounds
        self.goal.status = "paused" if status == "paused" else "pursuing"
        self._store()
        return self.goal

    def drop(self) -> bool:
        """Forget the goal (False: there was none)."""
        if self.goal is None:
            return False
        self.shell.session.append("goal", goalId=self.goal.id, status="dropped")
        self.goal = None
        self.shell.emit(self.event())
        return True

    def announce_with_next_prompt(self) -> None:
        """``--goal``: the directive is added to the next prompt the model gets."""
        self._announce = True

    async def with_directive(self, text: str) -> str | None:
        if not self._announce or self.goal is None or self.shell.commands.lookup(text):
            return text
        self._announce = False
        return f"{text}\n\n{self.goal.directive()}" if text.strip() else self.goal.directive()

    def restore(self) -> None:
        """The goal of the session's current branch (after a resume, /new, /fork, /tree)."""
        goal = Goal.from_entry(self.shell.session.latest("goal"))
        if goal != self.goal:
            self.goal = goal
            self.shell.emit(self.event())

    def _store(self) -> None:
        assert self.goal is not None
        self.shell.session.append("goal", **self.goal.entry())
        self.shell.emit(self.event())

    def on_event(self, event: ShellEvent) -> None:
        if isinstance(event, SessionChanged):
            self.restore()

    # ------------------------------------------------------------------ pursuit

    async def pursue(self) -> None:
        """After a run: while the goal is pursued, decide; not met: another round."""
        while self.goal is not None and self.goal.status == "pursuing":
            goal = self.goal
            goal.rounds += 1
            stop = self._interrupted()
            if stop is not None:
                self.set_status(*stop)
                return
            verdict = await self._decide(goal)
            if verdict is None or self.goal is not goal or goal.status != "pursuing":
                return  # aborted or failed while deciding, or /goal paused, edited or dropped it
            if verdict.met or verdict.blocked:
                self.set_status("met" if verdict.met else "unmet", verdict.reason)
                return
            goal.reason = verdict.reason
            limit = self._limit(goal)
            if limit is not None:
                self.set_status("budget-limited", limit)
                return
            self._store()
            await self.between_rounds()
            stop = self._interrupted()
            if stop is not None or self.goal is not goal or goal.status != "pursuing":
                if stop is not None:
                    self.set_status(*stop)
                return
            await self.shell.agent.prompt(goal.continuation(self.max_rounds, self._shown))
            await self.after_round()

    def _interrupted(self) -> tuple[GoalStatus, str] | None:
        """Why the pursuit cannot go on after this run (an abort, a failure, a budget's cut)."""
        signal = self.signal()
        if signal is not None and signal.aborted:
            return "paused", "the run was aborted"
        if self.budget.exceeded is not None:
            return "budget-limited", self.budget.exceeded.message
        messages = self.shell.agent.state.messages
        last = next((m for m in reversed(messages) if isinstance(m, AssistantMessage)), None)
        if last is not None and last.stop_reason in ("error", "aborted"):
            why = last.error_message or last.stop_reason
            return "paused", f"the run failed: {why}"
        return None

    def _limit(self, goal: Goal) -> str | None:
        """The budget that allows no further round (reported as ``budget_exceeded``)."""
        spent = self.budget.spent()
        if spent is not None:
            return spent.message
        if goal.rounds >= self.max_rounds:
            message = (
                f"stopped: the goal reached goal.maxRounds {self.max_rounds} without being met"
            )
            self.shell.emit(
                BudgetExceeded(
                    budget="rounds", limit=self.max_rounds, used=goal.rounds, message=message
                )
            )
            return message
        return None

    async def _decide(self, goal: Goal) -> Verdict | None:
        """The check command's or the judge's verdict (``None``: aborted meanwhile, or the
        judging request failed; the goal is paused then)."""
        signal = self.signal() or AbortSignal()
        self.checking = True
        self.shell.emit(self.event())
        try:
            verdict: Verdict | None
            if goal.check:
                verdict, exit_code, output = await self._run_check(goal.check, signal)
            else:
                verdict, exit_code, output = await self._judge(goal, signal), None, ""
        finally:
            self.checking = False
        if signal.aborted:
            self.set_status("paused", "the run was aborted")
            return None
        if verdict is None:
            return None  # the judge failed: paused, with its reason
        self._shown = "" if verdict.met else output
        self.shell.emit(
            GoalChecked(
                goal_id=goal.id,
                round=goal.rounds,
                met=verdict.met,
                by="check" if goal.check else "judge",
                reason=verdict.reason,
                blocked=verdict.blocked,
                exit_code=exit_code,
                output=output,
            )
        )
        return verdict

    async def _run_check(
        self, command: str, signal: AbortSignal
    ) -> tuple[Verdict, int | None, str]:
        from pi_cli.shell.goals._check import run_check
        from pi_cli.shell.goals._judge import Verdict

        result = await run_check(
            command,
            self.shell.cwd,
            self.shell.sandbox,
            self.tools_env(),
            signal,
            self.check_timeout,
        )
        return Verdict(result.met, result.reason), result.exit_code, result.output

    async def _judge(self, goal: Goal, signal: AbortSignal) -> Verdict | None:
        from pi_cli.shell.goals._judge import JudgeError, judge

        messages: list[Message] = list(self.shell.agent.state.messages)
        try:
            stream_fn, model = self.judge_stream()
            verdict, cost = await judge(stream_fn, model, goal.condition, messages, signal)
        except JudgeError as exc:
            why = str(exc)
        except Exception as exc:  # noqa: BLE001 - a provider's failure pauses the goal, no crash
            why = f"{type(exc).__name__}: {exc}"
        else:
            self.budget.add_cost(cost)
            return verdict
        if not signal.aborted:
            self.set_status("paused", f"the judging request failed: {why}")
        return None
