"""Switching the model and the reasoning level of a live shell (``/model``, ``/thinking``, RPC).

The shell keeps the model it uses (``model_id``, ``resolved_model``) and the stream function
bound to it; a switch resolves the new spec, hands the old client to the pool to close, tells
the agent, records the change in the session and emits :class:`ModelChanged`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pi_cli.shell.events import ModelChanged, ShellEvent
from pi_cli.shell.models.setup import ConfigError, ModelResolver, StreamFnPool

if TYPE_CHECKING:
    from agent_core import Agent, StreamFn
    from agent_core.providers import ResolvedModel
    from pi_cli.shell.config.settings import Settings
    from pi_cli.shell.events.bus import EventBus
    from pi_cli.shell.input_policy import InputPolicy
    from pi_cli.shell.session.store import SessionStore

DEFAULT_CONTEXT_WINDOW = 128_000
"""The context window assumed when the model does not say (an injected stream, a bare id)."""


class ModelHost(Protocol):
    """The shell as its model is switched."""

    model_id: str
    resolved_model: ResolvedModel | None
    thinking: str

    @property
    def agent(self) -> Agent: ...
    @property
    def session(self) -> SessionStore: ...
    @property
    def events(self) -> EventBus: ...
    @property
    def models(self) -> ModelResolver: ...
    @property
    def stream_fns(self) -> StreamFnPool: ...
    @property
    def policy(self) -> InputPolicy: ...
    def emit(self, event: ShellEvent) -> None: ...


def resolve_into(shell: ModelHost, spec: str | None) -> StreamFn:
    """Resolve ``spec`` (None: the start-up choice) and make it the shell's model."""
    choice = shell.models.resolve(spec)
    shell.resolved_model = choice.resolved
    shell.model_id = choice.model_id
    return choice.stream_fn


def switch_model(shell: ModelHost, spec: str, record: bool) -> None:
    """Switch to ``spec`` (raises :class:`ConfigError` with a user-facing message)."""
    if shell.policy.busy_elsewhere():
        raise ConfigError("Cannot change the model while the agent is running (abort it first)")
    agent = shell.agent
    stream_fn = resolve_into(shell, spec)
    old, agent.stream_fn = agent.stream_fn, stream_fn
    if old is not stream_fn:
        shell.stream_fns.retire(old)
    agent.model = shell.model_id
    shell.models.identify(agent, shell.resolved_model)
    if record:
        shell.session.append("model_change", model=shell.model_id)
        shell.events.report_session(shell.session)
    shell.emit(ModelChanged(model=shell.model_id, thinking=shell.thinking))


def switch_thinking(shell: ModelHost, level: str) -> None:
    """Change the reasoning level for the next requests, and record it."""
    shell.thinking = level
    shell.agent.thinking = level
    shell.session.append("thinking_level_change", thinkingLevel=level)
    shell.events.report_session(shell.session)
    shell.emit(ModelChanged(model=shell.model_id, thinking=level))


def context_window_of(resolved: ResolvedModel | None, settings: Settings) -> int:
    """The model's context window in tokens (a budget from settings wins if smaller)."""
    window = (resolved.context_window if resolved is not None else 0) or DEFAULT_CONTEXT_WINDOW
    budget = settings.compaction.context_budget
    return min(window, budget) if budget else window
