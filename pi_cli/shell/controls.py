"""Session controls any front end can offer (RPC's ``cycle_model``, ``set_auto_retry``...; the
TUI's model and thinking cycling): built by the CodingAgent against :class:`ControlledShell`."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.shell.events import AutoRetryEnd, AutoRetryStart, ShellEvent
from pi_cli.shell.models.controls import available_models, model_object, next_model, next_thinking

if TYPE_CHECKING:
    from agent_core.providers import ResolvedModel
    from agent_core.stream import OnRetryEnd, RetryNotice
    from pi_cli.shell.config.settings import Settings
    from pi_cli.shell.models.setup import ModelResolver


class ControlledShell(Protocol):
    """What the controls use of the shell."""

    @property
    def model_id(self) -> str: ...
    @property
    def resolved_model(self) -> ResolvedModel | None: ...
    @property
    def thinking(self) -> str: ...
    @property
    def settings(self) -> Settings: ...
    def set_model(self, spec: str, *, record: bool = True) -> None: ...
    def set_thinking(self, level: str) -> None: ...
    def emit(self, event: ShellEvent) -> None: ...


class ShellControls:
    """Model, thinking, retry and compaction switches of one shell."""

    def __init__(self, shell: ControlledShell, models: ModelResolver) -> None:
        self.shell = shell
        self._models = models

    def model_info(self) -> dict[str, Any]:
        """The current model as pi's ``Model`` object (provider, id, api, window, cost...)."""
        return model_object(self.shell.resolved_model, self.shell.model_id)

    @property
    def supports_thinking(self) -> bool:
        """Whether the model reasons (an injected or unknown-metadata model: assumed)."""
        resolved = self.shell.resolved_model
        return resolved is None or resolved.supports_reasoning

    async def available_models(self) -> list[dict[str, Any]]:
        """The models usable now, the current one first (blocking work in a thread)."""
        return await asyncio.to_thread(
            available_models,
            self.shell.resolved_model,
            self.shell.model_id,
            self.shell.settings.local_probe_ports,
        )

    async def cycle_model(self) -> dict[str, Any] | None:
        """Switch to the next usable model; ``None`` when there is no other one."""
        current = self.model_info()
        target = next_model(await self.available_models(), current["provider"], current["id"])
        if target is None:
            return None
        self.shell.set_model(f"{target['provider']}/{target['id']}")
        return self.model_info()

    def cycle_thinking(self) -> str | None:
        """Step to the next thinking level; ``None`` when the model does not reason."""
        level = next_thinking(self.shell.thinking, self.supports_thinking)
        if level is not None:
            self.shell.set_thinking(level)
        return level

    @property
    def auto_retry(self) -> bool:
        """Whether transient provider errors are retried automatically."""
        return self.shell.settings.retry.enabled

    def set_auto_retry(self, enabled: bool) -> None:
        """Turn automatic retries on or off (for this session; settings files are not written)."""
        self._models.set_retry_enabled(enabled)

    def set_auto_compaction(self, enabled: bool) -> None:
        """Turn compaction after runs on or off (for this session)."""
        self.shell.settings.compaction.enabled = enabled

    def retry_callbacks(self) -> tuple[Callable[[RetryNotice], None], OnRetryEnd]:
        """The agent's ``on_retry`` and ``on_retry_end``: retries become shell events."""

        def ended(ok: bool, attempt: int, error: str | None) -> None:
            self.shell.emit(AutoRetryEnd(success=ok, attempt=attempt, final_error=error))

        return self.on_retry, ended

    def on_retry(self, notice: RetryNotice) -> None:
        """A retry will be waited for: remember it (for :meth:`abort_retry`) and tell everyone."""
        self._models.retry_gate.note(notice)
        self.shell.emit(AutoRetryStart.of(notice))

    def abort_retry(self) -> bool:
        """Stop the retry being waited for: the run ends with the provider's error."""
        gate = self._models.retry_gate
        if not gate.abort():
            return False
        attempt = gate.notice.attempt if gate.notice else 1
        self.shell.emit(AutoRetryEnd(success=False, attempt=attempt, final_error="Retry cancelled"))
        return True
