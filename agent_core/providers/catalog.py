"""Model metadata: litellm's shipped cost map (read as JSON, never imported) and models.json.

Both are parsed lazily, once; nothing here runs at import time.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import threading
import time
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal

from agent_core.providers._catalog_index import (
    chat_keys,
    chat_owner,
    indexed_entries,
    indexed_entry,
    providers_of,
    prune,
    read_header,
    write_index,
)
from agent_core.records import Record

_COST_MAP_FILES = (
    "model_prices_and_context_window_backup.json",
    "model_prices_and_context_window.json",
)
_lock = threading.RLock()  # _load_index may read the whole map under it
_cost_map: dict[str, dict[str, Any]] | None = None

CustomApi = Literal["openai-completions", "openai-responses", "anthropic-messages"]
"""The wire protocols a models.json provider may speak."""
API_KINDS: Final[tuple[CustomApi, ...]] = (
    "openai-completions",
    "openai-responses",
    "anthropic-messages",
)
_API_ALIASES: Final = {"responses": "openai-responses", "completions": "openai-completions"}


DEFAULT_CONTEXT_WINDOW: Final = 128_000
DEFAULT_MAX_OUTPUT: Final = 16_384


def pi_home(env: Mapping[str, str] | None = None) -> Path:
    """``$PI_HOME`` (``~`` expanded, as ``pi_cli.shell.paths.pi_home`` does) or ``~/.pi``.

    Only the default for ``models_file``: the TUI's model picker still calls
    :func:`list_models` without one.
    """
    env = os.environ if env is None else env
    value = env.get("PI_HOME")
    return Path(value).expanduser() if value else Path.home() / ".pi"


class ModelConfigError(ValueError):
    """A model cannot be used as configured; the message is one friendly paragraph for the user."""


def cost_map() -> dict[str, dict[str, Any]]:
    """litellm's model cost map, read from the installed package's JSON file ({} if absent)."""
    global _cost_map
    if _cost_map is not None:
        return _cost_map
    with _lock:
        if _cost_map is None:
            _cost_map = _load_cost_map()
    return _cost_map


def _cost_map_files() -> list[Path]:
    try:
        spec = importlib.util.find_spec("litellm")  # locates the package without importing it
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.origin:
        return []
    folder = Path(spec.origin).parent
    return [folder / name for name in _COST_MAP_FILES if (folder / name).is_file()]


def _load_cost_map() -> dict[str, dict[str, Any]]:
    for path in _cost_map_files():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        return {k: v for k, v in data.items() if isinstance(v, dict) and k != "sample_spec"}
    return {}


# One model's entry without parsing the whole 3.4 MB map: see :mod:`._catalog_index`.
_index: dict[str, Any] | None = None


def _index_path(stat: os.stat_result) -> Path:
    tag = f"{stat.st_size}-{stat.st_mtime_ns}-{sys.version_info[0]}{sys.version_info[1]}"
    return pi_home() / "cache" / f"model-catalog-{tag}.index"


def _load_index() -> dict[str, Any] | None:
    """The catalogue's index (built and saved the first time), or None without one."""
    global _index
    if _index is not None:
        return _index or None
    _index = {}
    files = _cost_map_files()
    if not files:
        return None
    try:
        path = _index_path(files[0].stat())
        header = read_header(path)
        if header is None:
            write_index(path, cost_map())
            prune(path, time.time())
            header = read_header(path)
        _index = header or {}
    except OSError:
        pass  # no index: the whole map
    return _index or None


def _entries_for(keys: tuple[str, ...]) -> list[dict[str, Any] | None]:
    if _cost_map is None:
        with _lock:
            index = _load_index()
        if index is not None:
            try:
                return [indexed_entry(index, key) for key in keys]
            except (OSError, ValueError):
                pass  # the file changed under us: read it whole
    table = cost_map()
    return [table.get(key) for key in keys]


def chat_entries(
    providers: Collection[str] | None = None,
) -> list[tuple[str, str, dict[str, Any]]]:
    """The map's chat models as (key, provider, entry), in the map's order; only ``providers``'
    when given (then read through the index: their entries alone, not the whole map)."""
    if providers is not None and _cost_map is None:
        with _lock:
            index = _load_index()
        if index is not None:
            try:
                chat = chat_keys(index)
                keys = [(k, p) for p in sorted(providers) for k in chat.get(p, ())]
                entries = indexed_entries(index, (key for key, _ in keys))
                return [(k, p, e) for (k, p), e in zip(keys, entries, strict=True)]
            except (OSError, ValueError):
                pass  # the file changed under us: read it whole
    return [
        (key, owner, entry)
        for key, entry in cost_map().items()
        if (owner := chat_owner(key, entry)) is not None
        and (providers is None or owner in providers)
    ]


def lookup_metadata(provider: str, name: str) -> dict[str, Any] | None:
    """The cost-map entry for ``provider/name`` (tries the prefixed key, then the bare name)."""
    aliases = {"together_ai": "together_ai", "xai": "xai", "lmstudio": "lm_studio"}
    prefix = aliases.get(provider, provider)
    keys = (f"{prefix}/{name}", name)
    for key, entry in zip(keys, _entries_for(keys), strict=True):
        if entry is not None and (key != name or _provider_matches(entry, provider)):
            return entry
    return None


def _provider_matches(entry: dict[str, Any], provider: str) -> bool:
    owner = str(entry.get("litellm_provider", ""))
    return owner == provider or owner.startswith(provider + "-") or provider in ("", owner)


def known_providers() -> frozenset[str]:
    """Every provider the cost map names (``litellm_provider`` values and ``provider/`` keys)."""
    if _cost_map is None:
        with _lock:
            index = _load_index()
        if index is not None:
            return frozenset(index["providers"])
    return frozenset(providers_of(cost_map()))


def provider_of_bare_name(name: str) -> str | None:
    """The provider litellm records for a bare model name such as ``gpt-4o``."""
    entry = _entries_for((name,))[0]
    if entry is None:
        return None
    owner = str(entry.get("litellm_provider", ""))
    return owner.split("-")[0] or None


# ---------------------------------------------------------------------------- models.json


class CustomModel(Record):
    """One model declared in models.json (checked by :func:`_parse_models`)."""

    id: str
    context_window: int | None = None
    max_tokens: int | None = None
    cost: dict[str, float] = {}
    reasoning: bool = False


class CustomProvider(Record):
    """One provider declared in models.json (checked by :func:`_parse_provider`)."""

    name: str
    base_url: str
    api: CustomApi
    api_key: str | None = None
    api_key_env: str | None = None
    headers: dict[str, str] = {}
    models: dict[str, CustomModel] = {}


def load_models_file(path: Path | Sequence[Path] | None) -> dict[str, CustomProvider]:
    """Parse models.json. Missing file = no custom providers; a bad file raises ModelConfigError.

    Several files (pi's, then the TypeScript pi's as a fallback) merge by provider: the first file
    declaring a provider wins.
    """
    if path is not None and not isinstance(path, Path):
        merged: dict[str, CustomProvider] = {}
        for one in reversed(list(path)):
            merged.update(load_models_file(one))
        return merged
    if path is None or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ModelConfigError(
            f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}."
        ) from None
    except RecursionError:
        raise ModelConfigError(f"{path}: nested too deeply to be a models file.") from None
    except UnicodeDecodeError as exc:
        raise ModelConfigError(f"{path}: not UTF-8 text (byte {exc.start}).") from None
    except OSError as exc:
        raise ModelConfigError(f"{path}: cannot be read ({exc.strerror or exc}).") from None
    providers = data.get("providers") if isinstance(data, dict) else None
    if not isinstance(providers, dict):
        raise ModelConfigError(
            f'{path}: expected an object with a "providers" object at the top level.'
        )
    return {name: _parse_provider(path, name, raw) for name, raw in providers.items()}


def _parse_models(where: str, models_raw: Any) -> dict[str, CustomModel]:
    """A custom provider's ``models`` list, checked entry by entry."""
    if not isinstance(models_raw, list):
        raise ModelConfigError(f'{where}: "models" must be a list.')
    models: dict[str, CustomModel] = {}
    for item in models_raw:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            raise ModelConfigError(f'{where}: every entry of "models" needs a string "id".')
        cost, model_where = item.get("cost", {}), f'{where}, model "{item["id"]}"'
        if not isinstance(cost, dict) or not all(isinstance(v, int | float) for v in cost.values()):
            raise ModelConfigError(f'{model_where}: "cost" must map names to numbers.')
        for key in ("contextWindow", "maxTokens"):
            if key in item and not isinstance(item[key], int):
                raise ModelConfigError(f'{model_where}: "{key}" must be an integer.')
        models[item["id"]] = CustomModel(
            id=item["id"],
            context_window=item.get("contextWindow"),
            max_tokens=item.get("maxTokens"),
            cost={k: float(v) for k, v in cost.items()},
            reasoning=bool(item.get("reasoning", False)),
        )
    return models


def _parse_provider(path: Path, name: str, raw: Any) -> CustomProvider:
    where = f'{path}: provider "{name}"'
    if not isinstance(raw, dict):
        raise ModelConfigError(f"{where} must be an object.")
    base_url = raw.get("baseUrl")
    if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
        raise ModelConfigError(f'{where} needs "baseUrl", an http(s) URL.')
    api = raw.get("api", "openai-completions")
    api = _API_ALIASES.get(api, api) if isinstance(api, str) else api
    if api not in API_KINDS:
        raise ModelConfigError(
            f'{where}: "api" must be one of {", ".join(API_KINDS)} (got {api!r}).'
        )
    for key in ("apiKey", "apiKeyEnv"):
        if key in raw and not isinstance(raw[key], str):
            raise ModelConfigError(f'{where}: "{key}" must be a string.')
    headers = raw.get("headers", {})
    if not isinstance(headers, dict):
        raise ModelConfigError(f'{where}: "headers" must be an object.')
    models = _parse_models(where, raw.get("models", []))
    return CustomProvider(
        name=name,
        base_url=base_url.rstrip("/"),
        api=api,
        api_key=raw.get("apiKey"),
        api_key_env=raw.get("apiKeyEnv"),
        headers={str(k): str(v) for k, v in headers.items()},
        models=models,
    )


# ---------------------------------------------------------------------------- metadata


class ModelMetadata(Record, frozen=True):  # type: ignore[misc]  # mypy: frozen under a mutable base
    """Window, prices and capabilities of a model; the defaults mean "not known"."""

    context_window: int = DEFAULT_CONTEXT_WINDOW
    max_output_tokens: int = DEFAULT_MAX_OUTPUT
    input_cost: float = 0.0
    output_cost: float = 0.0
    cache_read_cost: float = 0.0
    cache_write_cost: float = 0.0
    supports_reasoning: bool = False
    known: bool = False


def cost_map_metadata(entry: Mapping[str, Any] | None) -> ModelMetadata:
    """Metadata from a litellm cost-map entry (prices per token become per million)."""
    if not entry:
        return ModelMetadata()

    def per_million(key: str) -> float:
        value = entry.get(key)
        return float(value) * 1e6 if isinstance(value, int | float) else 0.0

    window = entry.get("max_input_tokens") or entry.get("max_tokens")
    out = entry.get("max_output_tokens") or entry.get("max_tokens")
    return ModelMetadata(
        context_window=window if isinstance(window, int) else DEFAULT_CONTEXT_WINDOW,
        max_output_tokens=out if isinstance(out, int) else DEFAULT_MAX_OUTPUT,
        input_cost=per_million("input_cost_per_token"),
        output_cost=per_million("output_cost_per_token"),
        cache_read_cost=per_million("cache_read_input_token_cost"),
        cache_write_cost=per_million("cache_creation_input_token_cost"),
        supports_reasoning=bool(entry.get("supports_reasoning", False)),
        known=True,
    )


def custom_metadata(provider: CustomProvider, name: str) -> ModelMetadata:
    """Metadata of model ``name`` as declared under ``provider`` in models.json."""
    model = provider.models.get(name)
    if model is None:
        return ModelMetadata()
    return ModelMetadata(
        context_window=model.context_window or DEFAULT_CONTEXT_WINDOW,
        max_output_tokens=model.max_tokens or DEFAULT_MAX_OUTPUT,
        input_cost=model.cost.get("input", 0.0),
        output_cost=model.cost.get("output", 0.0),
        cache_read_cost=model.cost.get("cacheRead", 0.0),
        cache_write_cost=model.cost.get("cacheWrite", 0.0),
        supports_reasoning=model.reasoning,
        known=True,
    )
