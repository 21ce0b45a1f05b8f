"""web_search's side in the shell: the backend from ``webSearch`` settings and the held key,
and the domain veto of ``WebFetch(domain:...)`` deny rules (see ``docs/web-search.md``)."""

from __future__ import annotations

from typing import Any

from pi_cli.shell.config.network import network_config


def web_search_config(shell: Any) -> Any:
    """A :class:`tools.web_search.WebSearchConfig` (no backend: not configured, or unusable)."""
    from tools._search_backends import DEFAULT_URLS, KEY_ENVS, SearchBackend
    from tools.web_search import WebSearchConfig

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
    network = network_config(shell.settings, shell.notify, "web_search")
    backend = SearchBackend(settings.backend, url, key, network)
    return WebSearchConfig(backend, settings.max_results, lambda host: _denied(shell, host))


def _denied(shell: Any, host: str) -> bool:
    """Whether a ``WebFetch(domain:...)`` (or ``WebSearch(domain:...)``) deny rule covers host."""
    from pi_cli.shell.permissions.web import rule_hits

    engine = getattr(shell.safety, "engine", None)
    if engine is None or not host:
        return False
    args = {"url": f"https://{host}/"}
    for rule in engine.rules.of("deny"):
        if rule.specifier and (rule.covers_tool("web_fetch") or rule.covers_tool("web_search")):
            if rule_hits(rule.specifier, args, subdomains=True):
                return True
    return False


def attach_web_search(shell: Any, config: Any) -> None:
    """Tell the permission engine where queries go (it asks about that host)."""
    engine = getattr(shell.safety, "engine", None)
    if engine is not None and config.backend is not None:
        engine.search_url = config.backend.url
