"""Model resolution: ``provider/model`` strings -> a :class:`ResolvedModel` (endpoint, key, metadata)."""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from agent_core.messages import Cost, Usage
from agent_core.providers._config_values import config_value
from agent_core.providers._native import ANTHROPIC as _ANTHROPIC
from agent_core.providers._native import DEFAULT_MAX_TOKENS_CAP as DEFAULT_MAX_TOKENS_CAP
from agent_core.providers._native import DEFAULTS_BY_KEY as DEFAULTS_BY_KEY
from agent_core.providers._native import LITELLM_KEY_ENVS as LITELLM_KEY_ENVS
from agent_core.providers._native import NATIVE as NATIVE
from agent_core.providers._native import OPENAI as _OPENAI
from agent_core.providers._native import RESPONSES as _RESPONSES
from agent_core.providers._native import TRANSPORTS as TRANSPORTS
from agent_core.providers._native import Api, NativeProvider
from agent_core.providers._native import Transport as Transport
from agent_core.providers._resolved import ResolvedModel as ResolvedModel
from agent_core.providers.catalog import (
    CustomProvider,
    ModelConfigError,
    ModelMetadata,
    chat_entries,
    cost_map_metadata,
    custom_metadata,
    load_models_file,
    lookup_metadata,
    pi_home,
    provider_of_bare_name,
)
from agent_core.records import Record


def compute_cost(model: ResolvedModel, usage: Usage) -> Cost:
    """Dollar cost of ``usage`` at ``model``'s per-million-token prices."""
    parts = {
        "input": usage.input * model.input_cost / 1e6,
        "output": usage.output * model.output_cost / 1e6,
        "cache_read": usage.cache_read * model.cache_read_cost / 1e6,
        "cache_write": usage.cache_write * model.cache_write_cost / 1e6,
    }
    return Cost(**parts, total=sum(parts.values()))


def _model(
    provider: str,
    name: str,
    api: Api,
    meta: ModelMetadata,
    *,
    base_url: str | None = None,
    headers: Mapping[str, str] | None = None,
    api_key: str | None = None,
    api_key_env: str | None = None,
    env_secret: str | None = None,
    litellm_model: str = "",
) -> ResolvedModel:
    """The one place a :class:`ResolvedModel` is built, every field by name."""
    return ResolvedModel(
        id=f"{provider}/{name}",
        provider=provider,
        name=name,
        api=api,
        base_url=base_url,
        # A key read from a file often ends with a newline: no header may carry one.
        api_key=(api_key or "").strip() or None,
        api_key_env=api_key_env,
        env_secret=(env_secret or "").strip() or None,
        litellm_model=litellm_model,
        headers=dict(headers or {}),
        context_window=meta.context_window,
        max_output_tokens=meta.max_output_tokens,
        input_cost=meta.input_cost,
        output_cost=meta.output_cost,
        cache_read_cost=meta.cache_read_cost,
        cache_write_cost=meta.cache_write_cost,
        supports_reasoning=meta.supports_reasoning,
        known=meta.known,
    )


def _transport(transport: str, env: Mapping[str, str]) -> Transport:
    chosen = transport if transport != "auto" else (env.get("PI_TRANSPORT") or "auto")
    chosen = chosen.strip().lower()
    for known in TRANSPORTS:  # a loop, not `in`: it narrows to the Literal
        if chosen == known:
            return known
    raise ModelConfigError(
        f"Unknown transport {chosen!r}: use one of auto, native, litellm (PI_TRANSPORT)."
    )


def resolve_model(
    spec: str,
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    models_file: Path | Sequence[Path] | None = None,
    env: Mapping[str, str] | None = None,
    transport: str = "auto",
    openai_api: str = "auto",
) -> ResolvedModel:
    """Resolve ``provider/model`` (litellm convention) to an endpoint, key and metadata.

    Args:
        spec: e.g. ``anthropic/claude-sonnet-4-5``, ``ollama/qwen3``, ``myprov/m1``, ``gpt-4o``.
        api_base: overrides the base URL; with an unknown provider it means OpenAI-compatible.
        api_key: overrides the key from the environment / models.json.
        models_file: custom providers (default ``$PI_HOME/models.json``).
        env: environment to read keys from (default ``os.environ``).
        transport: ``auto`` | ``native`` | ``litellm`` (``auto`` defers to ``PI_TRANSPORT``).
        openai_api: which OpenAI API the native ``openai`` provider speaks: ``completions``,
            ``responses``, or ``auto`` (``PI_OPENAI_API``, else the catalogue: models it lists
            as Responses-only, such as the Codex and pro models, use the Responses API).

    Raises:
        ModelConfigError: with a friendly message (unknown model, missing key, bad models.json).
    """
    env = os.environ if env is None else env
    mode = _transport(transport, env)
    spec = spec.strip()
    provider, name = _split_spec(spec, api_base)
    customs = load_models_file(
        models_file if models_file is not None else pi_home(env) / "models.json"
    )
    key = api_key or None
    key_env = "--api-key" if key else None
    if provider in customs:
        return _custom_model(customs[provider], provider, name, mode, api_base, key, key_env, env)
    native = NATIVE.get(provider)
    if native is not None:
        request = _Request(
            provider=provider,
            name=name,
            spec=spec,
            mode=mode,
            api_base=api_base,
            key=key,
            key_env=key_env,
            env=env,
        )
        return _native_model(native, request, openai_api)
    if api_base:
        var = f"{provider.upper()}_API_KEY"
        if key is None and env.get(var):
            key, key_env = env[var], var
        return _model(
            provider,
            name,
            "litellm" if mode == "litellm" else _OPENAI,
            cost_map_metadata(lookup_metadata(provider, name)),
            base_url=api_base.rstrip("/"),
            api_key=key,
            api_key_env=key_env or var,
            litellm_model=f"openai/{name}",
        )
    if mode == "native":
        raise ModelConfigError(
            f"{provider}/ models have no native transport: use transport auto or litellm, or pass "
            "--api-base to reach an OpenAI-compatible endpoint."
        )
    key_env = key_env or LITELLM_KEY_ENVS.get(provider, f"{provider.upper()}_API_KEY")
    return _model(
        provider,
        name,
        "litellm",
        cost_map_metadata(lookup_metadata(provider, name)),
        api_key=key,
        api_key_env=key_env,
        # litellm sends the key from the environment itself; we only redact it.
        env_secret=env[key_env] if key is None and env.get(key_env) else None,
        litellm_model=f"{provider}/{name}",
    )


def _split_spec(spec: str, api_base: str | None) -> tuple[str, str]:
    """``provider/model`` -> (provider, model); a bare name's provider from the catalogue."""
    if not spec:
        raise ModelConfigError(
            "No model given: pass --model provider/model, e.g. anthropic/claude-sonnet-4-5."
        )
    provider, _, name = spec.partition("/")
    if name:
        return provider, name
    name = provider
    provider = provider_of_bare_name(name) or ("openai" if api_base else "")
    if not provider:
        raise ModelConfigError(
            f"Unknown model {spec!r}: write it as provider/model (for example anthropic/{spec} "
            f"or openai/{spec}), or declare it in models.json."
        )
    return provider, name


def _custom_model(
    custom: CustomProvider,
    provider: str,
    name: str,
    mode: str,
    api_base: str | None,
    key: str | None,
    key_env: str | None,
    env: Mapping[str, str],
) -> ResolvedModel:
    """A model of a provider declared in models.json."""
    if key is None and custom.api_key:
        key = config_value(custom.api_key, env)
        key_env = f"the apiKey of provider {provider!r} in models.json"
    if key is None and custom.api_key_env:
        key = env.get(custom.api_key_env) or None
    key_env = (
        key_env or custom.api_key_env or f"apiKey/apiKeyEnv of provider {provider!r} in models.json"
    )
    prefix = "anthropic/" if custom.api == _ANTHROPIC else "openai/"
    return _model(
        provider,
        name,
        "litellm" if mode == "litellm" else custom.api,
        custom_metadata(custom, name),
        base_url=api_base or custom.base_url,
        headers={k: config_value(v, env) for k, v in custom.headers.items()},
        api_key=key,
        api_key_env=key_env,
        litellm_model=prefix + name,
    )


class _Request(Record, frozen=True):  # type: ignore[misc]  # mypy: frozen under a mutable base
    """What :func:`resolve_model` was asked, for the native providers' branch."""

    provider: str
    name: str
    spec: str
    mode: str
    api_base: str | None
    key: str | None
    key_env: str | None
    env: Mapping[str, str]


def _native_model(native: NativeProvider, request: _Request, openai_api: str) -> ResolvedModel:
    """A model of a provider pi speaks to natively (its key from the environment)."""
    provider, name, env, api_base = request.provider, request.name, request.env, request.api_base
    key, key_env = request.key, request.key_env
    entry = lookup_metadata(provider, name)
    api = native.api
    if provider == "openai" and (
        openai_api != "auto" or env.get("PI_OPENAI_API") or (entry or {}).get("mode") == "responses"
    ):  # two APIs to choose from (the module loads only when it has a choice to make)
        from agent_core.providers._api_choice import speaks_responses

        api = _RESPONSES if speaks_responses(provider, entry, openai_api, env) else api
    base_url = (
        api_base or (env.get(native.base_env) if native.base_env else None) or native.base_url
    )
    if key is None:
        key, key_env = next(((env[v], v) for v in native.key_envs if env.get(v)), (None, key_env))
    if native.key_envs and key is None and not api_base:
        raise ModelConfigError(
            f"No API key for {provider}: set {native.key_envs[0]} in the environment "
            f"(or pass --api-key) to use {provider}/{name}."
        )
    if not native.litellm_known:
        key = key or "no-key"  # local servers ignore it; litellm's OpenAI client insists on one
    spec = request.spec
    return _model(
        provider,
        name,
        "litellm" if request.mode == "litellm" else api,
        cost_map_metadata(entry),
        base_url=base_url.rstrip("/"),
        api_key=key,
        api_key_env=key_env or (native.key_envs[0] if native.key_envs else None),
        litellm_model=spec if native.litellm_known and "/" in spec else f"openai/{name}",
    )


def default_model_spec(
    env: Mapping[str, str] | None = None, settings_model: str | None = None
) -> str | None:
    """The model to use when none was given: ``PI_MODEL``, then settings, then by available key."""
    env = os.environ if env is None else env
    if env.get("PI_MODEL"):
        return env["PI_MODEL"]
    if settings_model:
        return settings_model
    for var, spec in DEFAULTS_BY_KEY:
        if env.get(var):
            return spec
    return None


def list_models(
    filter: str | None = None,  # public API name
    *,
    models_file: Path | Sequence[Path] | None = None,
    env: Mapping[str, str] | None = None,
    providers: Collection[str] | None = None,
) -> list[ResolvedModel]:
    """Known chat models (litellm's cost map + models.json), optionally filtered by substring;
    with ``providers``, the cost map's models of those providers only (models.json's all)."""
    env = os.environ if env is None else env
    needle = (filter or "").lower()
    rows: dict[str, ResolvedModel] = {}
    customs = load_models_file(
        models_file if models_file is not None else pi_home(env) / "models.json"
    )
    for prov in customs.values():
        for model in prov.models.values():
            row = _model(
                prov.name,
                model.id,
                prov.api,
                custom_metadata(prov, model.id),
                base_url=prov.base_url,
            )
            rows[row.id] = row
    for key, owner, entry in chat_entries(providers):
        row_id = key if key.startswith(owner + "/") else f"{owner}/{key}"
        if row_id in rows or (needle and needle not in row_id.lower()):
            continue
        provider, _, name = row_id.partition("/")
        native = NATIVE.get(provider)
        rows[row_id] = _model(
            provider,
            name,
            native.api if native else "litellm",
            cost_map_metadata(entry),
            base_url=native.base_url if native else None,
        )
    return sorted(
        (r for r in rows.values() if not needle or needle in r.id.lower()), key=lambda r: r.id
    )
