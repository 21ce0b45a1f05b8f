"""Model-side controls every front end can offer: pi's model objects, the models to cycle through,
the thinking levels, and stopping an automatic retry while it waits."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from agent_core.stream import RetryNotice

if TYPE_CHECKING:
    from agent_core.providers import ResolvedModel

CYCLE_LEVELS = ("off", "minimal", "low", "medium", "high")
"""What cycling the thinking level steps through (``xhigh`` only when set explicitly)."""
DEFAULT_CONTEXT_WINDOW = 128_000
DEFAULT_MAX_TOKENS = 16_384


class RetryGate:
    """The wait before an automatic retry, which the user can cut short (pi's ``abort_retry``).

    The shell gives :meth:`sleep` to the provider layer's retry loop. :meth:`abort` ends the
    wait with the provider's error, so the run ends with that error instead of retrying.
    """

    def __init__(self) -> None:
        self._cancel: asyncio.Event | None = None
        self.notice: RetryNotice | None = None

    @property
    def waiting(self) -> bool:
        """A retry is being waited for."""
        return self._cancel is not None

    def note(self, notice: RetryNotice) -> None:
        """The retry about to be waited for (its error is what an abort ends the run with)."""
        self.notice = notice

    async def sleep(self, delay: float) -> None:
        """Wait ``delay`` seconds, unless :meth:`abort` is called first (then raise)."""
        cancel = self._cancel = asyncio.Event()
        try:
            try:
                await asyncio.wait_for(cancel.wait(), delay)
            except TimeoutError:
                return
        finally:
            self._cancel = None
        from agent_core.providers.errors import ProviderError  # only when a retry is cut short

        message = self.notice.error_message if self.notice else "Retry cancelled"
        raise ProviderError(f"{message} (retry cancelled)")

    def abort(self) -> bool:
        """Stop the retry being waited for; ``False`` when there is none."""
        if self._cancel is None:
            return False
        self._cancel.set()
        return True


def model_object(resolved: ResolvedModel | None, model_id: str) -> dict[str, Any]:
    """pi's ``Model`` for a resolved model (or for a bare ``provider/id`` when unresolved)."""
    provider, _, name = model_id.partition("/")
    if resolved is None:
        return {
            "id": name or provider,
            "name": name or provider,
            "api": "",
            "provider": provider if name else "",
            "baseUrl": "",
            "reasoning": True,  # unknown (an injected model): every level is offered
            "input": ["text", "image"],
            "contextWindow": DEFAULT_CONTEXT_WINDOW,
            "maxTokens": DEFAULT_MAX_TOKENS,
            "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0},
        }
    return {
        "id": resolved.name,
        "name": resolved.name,
        "api": resolved.api,
        "provider": resolved.provider,
        "baseUrl": resolved.base_url or "",
        "reasoning": bool(resolved.supports_reasoning),
        "input": ["text", "image"],
        "contextWindow": int(resolved.context_window),
        "maxTokens": int(resolved.max_output_tokens),
        "cost": {
            "input": resolved.input_cost,
            "output": resolved.output_cost,
            "cacheRead": resolved.cache_read_cost,
            "cacheWrite": resolved.cache_write_cost,
        },
    }


def _keyed_providers(env: Mapping[str, str], current_provider: str) -> set[str]:
    from agent_core.providers.models import LITELLM_KEY_ENVS, NATIVE

    keyed = {name for name, native in NATIVE.items() if any(env.get(k) for k in native.key_envs)}
    keyed |= {name for name, key in LITELLM_KEY_ENVS.items() if env.get(key)}
    return keyed | {current_provider}


def available_models(
    resolved: ResolvedModel | None, model_id: str, ports: Mapping[str, int] | None
) -> list[dict[str, Any]]:
    """The models pi can use now (pi's ``get_available_models``), the current one first.

    models.json models, catalogue models of providers with a key (and of the current model's
    provider), and models on answering local servers.
    """
    from agent_core.providers import list_models
    from agent_core.providers.catalog import load_models_file
    from pi_cli.shell.models.local import detect_local_servers
    from pi_cli.shell.paths import models_files

    env = dict(os.environ)
    models_file = models_files()
    current = model_object(resolved, model_id)
    usable = _keyed_providers(env, current["provider"]) | set(load_models_file(models_file))
    rows = [current]
    seen = {(current["provider"], current["id"])}
    # Only the usable providers' models are read (through the catalogue's index when it has one).
    for model in list_models(None, models_file=models_file, env=env, providers=usable):
        key = (model.provider, model.name)
        if key not in seen and model.provider in usable:
            seen.add(key)
            rows.append(model_object(model, model.id))
    for server in detect_local_servers(ports, env):
        for name in server.models:
            key = (server.server.key, name)
            if key not in seen:
                seen.add(key)
                row = model_object(None, f"{server.server.key}/{name}")
                row |= {"api": "openai-completions", "baseUrl": server.server.api_base}
                rows.append(row | {"reasoning": False})
    return rows


def next_model(models: list[dict[str, Any]], provider: str, model_id: str) -> dict[str, Any] | None:
    """The model after the current one in ``models`` (``None`` with fewer than two)."""
    if len(models) < 2:
        return None
    index = next(
        (i for i, m in enumerate(models) if (m["provider"], m["id"]) == (provider, model_id)), 0
    )
    return models[(index + 1) % len(models)]


def next_thinking(level: str, supports: bool) -> str | None:
    """The thinking level after ``level`` (``None`` when the model does not reason)."""
    if not supports:
        return None
    index = CYCLE_LEVELS.index(level) if level in CYCLE_LEVELS else -1
    return CYCLE_LEVELS[(index + 1) % len(CYCLE_LEVELS)]
