"""web_search's side in the shell: the backend from ``webSearch`` settings and the held key,
and the domain veto of ``WebFetch(domain:...)`` deny rules (see ``docs/web-search.md``)."""

from __future__ import annotations

from typing import Any


def web_search_config(shell: Any) -> Any:
    """A :class:`tools.web.search.WebSearchConfig` (no backend: not configured, or unusable)."""
    from tools import SEARCH_DEFAULT_URLS as DEFAULT_URLS
    from tools import SEARCH_KEY_ENVS as KEY_ENVS
    from tools import SearchBackend
    from tools.web.search import WebSearchConfig

    settings = shell.settings.web_search
    if settings.backend is None:
        return WebSearchConfig()
    url = settings.url or DEFAULT_URLS.get(settings.backend)
    if not url or not url.startswith(("http://", "https://")):
        shell.notify(
            f"webSearch: the {settings.backend} backend needs webSearch.url, the instance's "
            "http(s) URL; web_search is off",
            "warning",
        )
        return WebSearchConfig()
    key = None
    if settings.backend in KEY_ENVS:
        from pi_cli.shell.config.secrets import provider_env

        name = KEY_ENVS[settings.backend]
        key = provider_env().get(name)  # held like provider keys, registered for redaction
        if not key:
            shell.notify(f"webSearch: {name} is not set; web_search is off", "warning")
            return WebSearchConfig()
    network = shell.settings.network.config_for(shell.notify, "web_search")
    backend = SearchBackend(settings.backend, url, key, network)
    return WebSearchConfig(backend, settings.max_results, lambda host: _denied(shell, host))


def _denied(shell: Any, host: str) -> bool:
    """Whether a deny rule of the permission engine covers results from ``host``."""
    engine = getattr(shell.safety, "engine", None)
    return bool(engine is not None and host and engine.result_denied(host))


def attach_web_search(shell: Any, config: Any) -> None:
    """Tell the permission engine where queries go (it asks about that host)."""
    engine = getattr(shell.safety, "engine", None)
    if engine is not None and config.backend is not None:
        engine.search_url = config.backend.url
