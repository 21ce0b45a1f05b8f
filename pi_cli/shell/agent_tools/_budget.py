"""Budgets: ``--max-turns`` and ``--max-cost`` (settings ``maxTurns``, ``maxCost``).

They count per run: from the input that starts the model (a prompt, a command's prompt) until
the shell is idle again, Stop-hook continuations and ``--output-schema`` retries included.
Turns are the main agent's model calls; the cost is what its answers cost plus what its
sub-agents' answers cost, in US dollars at the model catalogue's (or models.json's) prices. When
one is reached the run stops before its next model call (a sub-agent too); when that cut the
run short, a :class:`~pi_cli.shell.events.agent_tools.BudgetExceeded` event after its ``agent_end``
says which, and one-shot mode exits with ``ExitCode.BUDGET`` (5). A budget reached by the
final answer itself stopped nothing: the run ends as usual. ``--max-cost`` refuses to start with a model whose price pi does
not know: it could never trip.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent_core import AgentEnd, AssistantMessage, MessageEnd, TurnStart
from pi_cli.shell.events.agent_tools import BudgetExceeded
from pi_cli.shell.models.setup import ConfigError

if TYPE_CHECKING:
    from agent_core.providers import ResolvedModel
    from pi_cli.shell.config.settings import Settings
    from pi_cli.shell.events import ShellEvent
    from pi_cli.shell.options import ShellOptions


def parse_limits(options: ShellOptions, settings: Settings) -> tuple[int | None, float | None]:
    """(max turns, max cost) from the flags, else the settings (raises ConfigError)."""
    turns: Any = options.max_turns if options.max_turns is not None else settings.max_turns
    cost: Any = options.max_cost if options.max_cost is not None else settings.max_cost
    max_turns = max_cost = None
    if turns is not None:
        try:
            max_turns = int(str(turns).strip())
        except ValueError:
            max_turns = 0
        if max_turns < 1 or str(turns).strip().startswith("+"):
            raise ConfigError(f"--max-turns needs a whole number of at least 1, not {turns!r}")
    if cost is not None:
        try:
            max_cost = float(str(cost).strip().removeprefix("$"))
        except ValueError:
            max_cost = -1.0
        if not max_cost > 0 or max_cost == float("inf"):
            raise ConfigError(f"--max-cost needs an amount in US dollars above 0, not {cost!r}")
    return max_turns, max_cost


def price_known(resolved: ResolvedModel | None) -> bool:
    """Whether pi knows what the model costs (a price of 0 everywhere means unknown)."""
    return resolved is not None and (resolved.input_cost > 0 or resolved.output_cost > 0)


def unknown_price_message(model: str) -> str:
    """Why ``--max-cost`` cannot be used with ``model``."""
    return (
        f"--max-cost cannot be checked: pi does not know the price of {model} (a local or new "
        'model?). Declare it in $PI_HOME/models.json ("cost": {"input": ..., "output": ...} '
        "in dollars per million tokens), choose a model with known prices, or drop --max-cost."
    )


class BudgetGuard:
    """Counts one run's turns and cost; its ``should_stop`` is the agent's."""

    def __init__(
        self, max_turns: int | None, max_cost: float | None, emit: Callable[[ShellEvent], None]
    ) -> None:
        self.max_turns = max_turns
        self.max_cost = max_cost
        self.emit = emit
        self.turns = 0
        self.cost = 0.0
        self._hit: BudgetExceeded | None = None  # reached; reported if it cut the run
        self.exceeded: BudgetExceeded | None = None

    @property
    def active(self) -> bool:
        """Whether any budget is set."""
        return self.max_turns is not None or self.max_cost is not None

    def check_model(self, model: str, resolved: ResolvedModel | None) -> None:
        """Raise ConfigError when ``--max-cost`` is set and ``model``'s price is unknown."""
        if self.max_cost is not None and not price_known(resolved):
            raise ConfigError(unknown_price_message(model))

    def start_run(self) -> None:
        """A new input starts the model: count from zero."""
        self.turns, self.cost, self._hit, self.exceeded = 0, 0.0, None, None

    def on_agent_event(self, event: object) -> None:
        """Count the main agent's turns and answers."""
        if isinstance(event, TurnStart):
            self.turns += 1
        elif isinstance(event, MessageEnd) and isinstance(event.message, AssistantMessage):
            self.add_cost(event.message.usage.cost.total)
        elif isinstance(event, AgentEnd):
            self._report(event)

    def _report(self, end: AgentEnd) -> None:
        """The run ended: if a budget cut it (its last answer wanted more tools), say so.

        A budget reached by a run's final answer cut nothing: no event, an ordinary end.
        """
        last = next((m for m in reversed(end.messages) if isinstance(m, AssistantMessage)), None)
        cut = last is not None and bool(last.tool_calls) and last.stop_reason != "aborted"
        if self._hit is not None and self.exceeded is None and cut:
            self.exceeded = self._hit
            self.emit(self.exceeded)

    def spent(self) -> BudgetExceeded | None:
        """Before another round of a goal: the budget that allows none (reported once)."""
        if self.exceeded is None and self.should_stop() and self._hit is not None:
            self.exceeded = self._hit
            self.emit(self.exceeded)
        return self.exceeded

    def add_cost(self, dollars: float) -> None:
        """An answer (the main agent's or a sub-agent's) cost this much."""
        self.cost += max(0.0, dollars)

    def over_cost(self) -> bool:
        """The cost budget is spent (sub-agents stop too)."""
        if self.max_cost is not None and self.cost >= self.max_cost:
            self._exceed("cost", self.max_cost, self.cost)
            return True
        return False

    def should_stop(self) -> bool:
        """Before the main agent's next turn: whether a budget ends the run here."""
        if self.max_turns is not None and self.turns >= self.max_turns:
            self._exceed("turns", self.max_turns, self.turns)
            return True
        return self.over_cost()

    def _exceed(self, budget: str, limit: float, used: float) -> None:
        if self._hit is not None:
            return
        if budget == "turns":
            message = f"stopped: the run reached --max-turns {int(limit)} ({int(used)} turns)"
        else:
            message = f"stopped: the run reached --max-cost ${limit:g} (spent ${used:.4f})"
        self._hit = BudgetExceeded(budget=budget, limit=limit, used=used, message=message)  # type: ignore[arg-type]
