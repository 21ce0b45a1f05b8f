"""Models any server offers: the ``/models`` list of a custom provider or of ``--api-base``.

A provider declared in models.json (with its ``baseUrl``) and the server named by ``--api-base``
(or the ``apiBase`` setting, for the current model's provider) are asked ``GET <base>/models``
(``<base>/v1/models`` too when the base has no ``/v1`` and the first answers 404), with the
provider's key and headers. The shapes of OpenAI, vLLM, LM Studio, llama.cpp, Ollama
(``/v1/models`` and ``/api/tags``) and Anthropic are read. Only ``/model`` and
``pi --list-models`` ask, never start-up or a one-shot run.

Answers are cached in ``$PI_HOME/cache/served-models.json`` for :data:`CACHE_TTL_S` (a failure
for :data:`FAILURE_TTL_S`, so a dead server does not cost every picker its timeout); one ask
takes at most :data:`TIMEOUT_S`; at most :data:`MAX_BODY` bytes are read and
:data:`MAX_MODELS` ids kept (each cleaned, at most 200 characters).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pi_cli.shell.paths import pi_home

if TYPE_CHECKING:
    from pi_cli.shell.models.setup import ModelResolver
from pi_cli.shell.text.terminal import one_line

CACHE_TTL_S = 600.0
FAILURE_TTL_S = 60.0
TIMEOUT_S = 3.0
MAX_BODY = 4 * 1024 * 1024
MAX_MODELS = 2000
_MAX_ID = 200


@dataclass(frozen=True)
class ServedSource:
    """A server to ask: the spec prefix its models get, where it is and how to authenticate."""

    provider: str
    base_url: str
    headers: tuple[tuple[str, str], ...] = ()

    @property
    def cache_key(self) -> str:
        """The base URL and a digest of the headers (another key may see other models)."""
        digest = hashlib.sha256(repr(self.headers).encode()).hexdigest()[:16]
        return f"{self.base_url}#{digest}"


@dataclass(frozen=True)
class ServedModels:
    """What one server answered: its model ids (``provider/id`` specs), or why not."""

    source: ServedSource
    models: tuple[str, ...] = ()
    error: str | None = None
    more: int = 0
    """Ids beyond :data:`MAX_MODELS`, not listed."""

    @property
    def specs(self) -> list[str]:
        """``provider/id`` for each model."""
        return [f"{self.source.provider}/{name}" for name in self.models]

    @property
    def problem(self) -> str | None:
        """A line saying what went wrong, for the user (``None``: it answered)."""
        if self.error is None:
            return None
        return f"{self.source.provider}: cannot list the models of {self.source.base_url}: {self.error}"


def served_sources(
    current: str,
    api_base: str | None,
    api_key: str | None,
    env: Mapping[str, str],
    models_files: list[Path] | None = None,
) -> list[ServedSource]:
    """Every custom provider of models.json, and ``api_base`` for ``current``'s provider."""
    from agent_core.providers import ModelConfigError, resolve_model
    from agent_core.providers.catalog import load_models_file
    from pi_cli.shell.models.setup import models_file

    files = models_file() if models_files is None else models_files
    try:
        customs = load_models_file(files)
    except ModelConfigError:
        customs = {}  # said where the catalogue is read
    sources: dict[str, ServedSource] = {}
    wanted: list[tuple[str, str | None, str | None]] = [(f"{n}/_", None, None) for n in customs]
    if api_base and current:
        wanted.insert(0, (current, api_base, api_key))
    for spec, base, key in wanted:
        try:
            model = resolve_model(spec, api_base=base, api_key=key, models_file=files, env=env)
        except ModelConfigError:
            continue
        if not model.base_url:
            continue
        headers = dict(model.headers)
        if model.api_key:
            if model.api == "anthropic-messages":
                headers.setdefault("x-api-key", model.api_key)
                headers.setdefault("anthropic-version", "2023-06-01")
            else:
                headers.setdefault("Authorization", f"Bearer {model.api_key}")
        source = ServedSource(
            model.provider, model.base_url.rstrip("/"), tuple(sorted(headers.items()))
        )
        sources.setdefault(source.cache_key, source)
    return list(sources.values())


def resolver_sources(resolver: ModelResolver, current: str) -> list[ServedSource]:
    """A shell's: ``current`` with the base and key it runs with, and models.json's."""
    api_key, api_base = resolver.credentials_for(current)
    return served_sources(current, api_base, api_key, resolver.env())


def served_models(sources: list[ServedSource], *, fresh: bool = False) -> list[ServedModels]:
    """Each source's models, from the cache while it is fresh, else asked (slow: a thread)."""
    cache = _read_cache()
    now = time.time()
    answers: list[ServedModels] = []
    changed = False
    for source in sources:
        entry = cache.get(source.cache_key)
        cached = _from_cache(source, entry, now) if not fresh else None
        if cached is None:
            cached = fetch_models(source)
            cache[source.cache_key] = {
                "at": now,
                "models": list(cached.models),
                "more": cached.more,
                "error": cached.error,
            }
            changed = True
        answers.append(cached)
    if changed:
        _write_cache(cache)
    return answers


def fetch_models(source: ServedSource, timeout: float = TIMEOUT_S) -> ServedModels:
    """Ask ``source`` now (no cache)."""
    import httpx

    urls = [f"{source.base_url}/models"]
    if not source.base_url.endswith("/v1"):
        urls.append(f"{source.base_url}/v1/models")
    deadline = time.monotonic() + timeout
    try:
        with _client(source.base_url, timeout) as client:
            for url in urls:
                status, body = _get(client, url, dict(source.headers), deadline)
                if status == 404 and url != urls[-1]:
                    continue
                if status != 200:
                    return ServedModels(source, error=f"HTTP {status}")
                return _parsed(source, body)
    except _TooBig:
        return ServedModels(
            source, error=f"the answer is larger than {MAX_BODY // (1024 * 1024)} MiB"
        )
    except httpx.TimeoutException:
        return ServedModels(source, error=f"no answer within {timeout:g} s")
    except httpx.HTTPError as exc:
        return ServedModels(source, error=one_line(str(exc) or type(exc).__name__))
    return ServedModels(source, error="no answer")


class _TooBig(Exception):
    pass


def _client(base_url: str, timeout: float) -> Any:
    """A client as the providers' own: the system trust store; a proxy from the environment
    only for a remote server (a stray proxy setting would only break localhost)."""
    from urllib.parse import urlsplit

    import httpx

    from agent_core.net import ssl_context

    local = urlsplit(base_url).hostname in ("127.0.0.1", "localhost", "::1")
    return httpx.Client(
        timeout=httpx.Timeout(timeout), verify=ssl_context(None), trust_env=not local
    )


def _get(client: Any, url: str, headers: dict[str, str], deadline: float) -> tuple[int, bytes]:
    import httpx

    with client.stream("GET", url, headers=headers) as response:
        if response.status_code != 200:
            return response.status_code, b""
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > MAX_BODY:
                raise _TooBig
            if time.monotonic() > deadline:  # a server trickling bytes is as slow as a silent one
                raise httpx.ReadTimeout("slow answer")
            chunks.append(chunk)
        return 200, b"".join(chunks)


def _parsed(source: ServedSource, body: bytes) -> ServedModels:
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):  # a deeply nested answer too
        return ServedModels(source, error="the answer is not JSON")
    ids = model_ids(data)
    if ids is None:
        return ServedModels(source, error="the answer holds no model list")
    return ServedModels(source, tuple(ids[:MAX_MODELS]), more=max(0, len(ids) - MAX_MODELS))


def model_ids(data: object) -> list[str] | None:
    """The ids of a model list in any of the known shapes (``None``: no list at all)."""
    items: object = None
    if isinstance(data, list):
        items = data
    elif isinstance(data, dict):
        items = data.get("data") if isinstance(data.get("data"), list) else data.get("models")
    if not isinstance(items, list):
        return None
    ids: dict[str, None] = {}
    for item in items:
        value = item
        if isinstance(item, dict):
            value = next(
                (item[k] for k in ("id", "name", "model") if isinstance(item.get(k), str)), None
            )
        if isinstance(value, str) and (name := one_line(value).strip()) and len(name) <= _MAX_ID:
            ids[name] = None
    return list(ids)


def _from_cache(source: ServedSource, entry: object, now: float) -> ServedModels | None:
    if not isinstance(entry, dict) or not isinstance(entry.get("at"), int | float):
        return None
    error = entry.get("error")
    ttl = FAILURE_TTL_S if error else CACHE_TTL_S
    if not 0 <= now - entry["at"] < ttl:
        return None
    models = entry.get("models")
    if not isinstance(models, list) or not all(isinstance(m, str) for m in models):
        return None
    more = entry["more"] if isinstance(entry.get("more"), int) else 0
    return ServedModels(source, tuple(models[:MAX_MODELS]), str(error) if error else None, more)


def cache_path() -> Path:
    """``$PI_HOME/cache/served-models.json``."""
    return pi_home() / "cache" / "served-models.json"


def _read_cache() -> dict[str, Any]:
    try:
        data = json.loads(cache_path().read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_cache(cache: dict[str, Any]) -> None:
    path = cache_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        temporary.write_text(json.dumps(cache), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass  # a cache that cannot be written only costs the next ask
