"""The models a user can pick, best first: the current one, then what is configured here
(models.json, local servers that answer, providers whose key is set), then the rest of the
catalogue. Front ends show this list in their ``/model`` picker.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_cli.shell.models.served import ServedModels


@dataclass(frozen=True)
class ModelRow:
    """One pickable model."""

    spec: str
    note: str = ""
    configured: bool = False
    current: bool = False


def provider_key_env(provider: str) -> tuple[str, ...]:
    """The environment variables holding ``provider``'s key."""
    from agent_core.providers.models import LITELLM_KEY_ENVS, NATIVE

    native = NATIVE.get(provider)
    if native is not None:
        return native.key_envs
    return (LITELLM_KEY_ENVS.get(provider, f"{provider.upper()}_API_KEY"),)


def model_rows(
    current: str,
    ports: Mapping[str, int] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    catalogue: list[Any] | None = None,
    local: list[Any] | None = None,
    signed_in: list[str] | None = None,
    served: list[ServedModels] | None = None,
    problems: list[str] | None = None,
) -> list[ModelRow]:
    """Every pickable model, configured ones first, without duplicates (slow: use a thread).

    ``catalogue`` (``ResolvedModel`` rows) and ``local`` (detected servers) default to the
    real catalogue and a probe of the local servers; ``signed_in`` (providers with ``pi login``
    tokens) to what the token store holds; ``served``: what custom servers list (:mod:`.served`),
    after the local ones; a server that did not answer is said in ``problems``.
    """
    from agent_core.providers import list_models
    from pi_cli.shell.models._subscription import signed_in_providers, subscription_specs
    from pi_cli.shell.models.local import detect_local_servers
    from pi_cli.shell.models.setup import models_file

    env = dict(os.environ) if env is None else env
    rows: dict[str, ModelRow] = {}
    if current:
        rows[current] = ModelRow(current, "current", configured=True, current=True)
    if catalogue is None:
        catalogue = list_models(models_file=models_file(), env=env)
    if local is None:
        local = detect_local_servers(ports, env)
    for server in local:
        for name in server.models:
            spec = f"{server.server.key}/{name}"
            note = f"local: {server.server.label} at {server.server.address}"
            rows.setdefault(spec, ModelRow(spec, note, configured=True))
    signed = signed_in_providers() if signed_in is None else signed_in
    for spec in subscription_specs(signed):
        provider = spec.partition("/")[0]
        rows.setdefault(spec, ModelRow(spec, f"pi login {provider}", configured=True))
    _add_served(rows, served or [], problems if problems is not None else [])
    how: dict[str, str | None] = {}
    later: list[ModelRow] = []
    for model in catalogue:
        provider = model.provider
        if provider not in how:
            how[provider] = _how_configured(provider, env, signed)
        custom = model.base_url and model.api != "litellm" and provider not in _native_names()
        if custom:
            rows.setdefault(model.id, ModelRow(model.id, "models.json", configured=True))
        elif how[provider]:
            rows.setdefault(model.id, ModelRow(model.id, how[provider] or "", configured=True))
        else:
            later.append(ModelRow(model.id))
    return [*rows.values(), *(row for row in later if row.spec not in rows)]


def _how_configured(provider: str, env: Mapping[str, str], signed: list[str]) -> str | None:
    """``key ENV`` or ``pi login provider`` for a usable provider, else None."""
    key = next((v for v in provider_key_env(provider) if env.get(v)), None)
    if key:
        return f"key {key}"
    return f"pi login {provider}" if provider in signed else None


def _add_served(rows: dict[str, ModelRow], served: list[ServedModels], problems: list[str]) -> None:
    for answer in served:
        note = f"served by {answer.source.base_url}"
        for spec in answer.specs:
            rows.setdefault(spec, ModelRow(spec, note, configured=True))
        if answer.problem:
            problems.append(answer.problem)
        elif answer.more:
            problems.append(f"{answer.source.base_url}: {answer.more} more models not listed")


def _native_names() -> frozenset[str]:
    from agent_core.providers.models import NATIVE

    return frozenset(NATIVE)
