"""Permissions of web_fetch and of the agent tools (todo_write, task, exit_plan_mode, ask_user,
monitor_stop).

web_fetch follows the permission model by domain:

- a URL the user typed in a prompt (or a steer) allows its host for the rest of the session;
- ``WebFetch(domain:example.com)`` allow rules allow that host exactly, ``domain:*.example.com``
  its subdomains, a bare ``WebFetch`` every host;
- deny and ask rules match their domain **and its subdomains** (``WebFetch(domain:evil.com)``
  also stops ``cdn.evil.com``);
- any other host asks (and one-shot mode, which cannot ask, denies), in every mode but
  ``bypassPermissions``; ``dontAsk`` denies it.

The agent tools change no file (a sub-agent's own calls are checked one by one): they run.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

WEB_TOOL = "web_fetch"
SEARCH_TOOL = "web_search"
AGENT_TOOLS = frozenset({"todo_write", "task", "exit_plan_mode", "ask_user", "monitor_stop"})
_URL = re.compile(r"https?://[^\s<>\"'`()\[\]{}]+", re.IGNORECASE)
_DOMAIN = re.compile(r"^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")


class DomainError(ValueError):
    """A ``WebFetch(...)`` specifier that is not ``domain:<host>``."""


def host_of(url: object) -> str | None:
    """The lower-case host of an http(s) URL, or None (not a string, no host, bad URL)."""
    if not isinstance(url, str):
        return None
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not host:
        return None
    return host.lower().rstrip(".")


def hosts_in(text: str) -> set[str]:
    """The hosts of every http(s) URL written in ``text``."""
    found = set()
    for match in _URL.finditer(text):
        host = host_of(match.group(0).rstrip(".,;:!?"))
        if host is not None:
            found.add(host)
    return found


def parse_domain(specifier: str) -> str:
    """``domain:example.com`` -> ``example.com`` (raises :class:`DomainError`)."""
    kind, _, value = specifier.partition(":")
    domain = value.strip().lower().rstrip(".")
    if kind.strip().lower() != "domain" or not _DOMAIN.match(domain):
        raise DomainError(
            f"expected domain:<host> (e.g. domain:docs.python.org), not {specifier!r}"
        )
    return domain


def _matches(domain: str, host: str, *, subdomains: bool) -> bool:
    if _is_address(host):  # an IP address has no subdomains
        return host == domain
    if domain.startswith("*."):
        return host.endswith(domain[1:])
    return host == domain or (subdomains and host.endswith("." + domain))


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def rule_hits(specifier: str | None, args: Mapping[str, Any], *, subdomains: bool) -> bool:
    """Whether a ``WebFetch`` rule covers a call (a URL without a host: only a bare rule)."""
    if specifier is None:
        return True
    host = host_of(args.get("url"))
    if host is None:
        return False
    try:
        return _matches(parse_domain(specifier), host, subdomains=subdomains)
    except DomainError:
        return False


class TypedHosts:
    """Hosts of the URLs the user typed in this session (they need no rule)."""

    def __init__(self) -> None:
        self.hosts: set[str] = set()

    def note(self, text: str) -> None:
        """Remember the hosts of the URLs in a message the user typed."""
        self.hosts |= hosts_in(text)

    def allows(self, args: Mapping[str, Any]) -> bool:
        """Whether the call's URL is on a host the user typed."""
        host = host_of(args.get("url"))
        return host is not None and host in self.hosts


def search_verdict(rules: Any, search_url: str | None) -> tuple[Any, str, list[Any]]:
    """(behavior, reason, rules to offer) for a web_search call.

    A bare ``WebSearch`` allow rule, or a ``WebFetch(domain:...)`` allow rule naming the
    backend's host, lets queries go there; otherwise the user is asked (which host).
    """
    if any(r.specifier is None for r in rules.of("allow") if r.covers_tool(SEARCH_TOOL)):
        return "allow", "allowed by the permission rule WebSearch", []
    target = {"url": search_url or ""}
    for rule in rules.of("allow"):
        if rule.covers_tool(WEB_TOOL) and rule_hits(rule.specifier, target, subdomains=False):
            return "allow", f"allowed by the permission rule {rule.describe()}", []
    host = host_of(search_url) or "the search backend"
    from pi_cli.shell.permissions._suggest import Suggestion

    return (
        "ask",
        f"it sends the query to {host}, a domain no rule allows",
        [Suggestion("WebSearch", "tool")],
    )


def denied_host(rules: Any, host: str) -> bool:
    """Whether a ``WebFetch``/``WebSearch`` ``domain:`` deny rule covers ``host``."""
    args = {"url": f"https://{host}/"}
    for rule in rules.of("deny"):
        if rule.specifier and (rule.covers_tool(WEB_TOOL) or rule.covers_tool(SEARCH_TOOL)):
            if rule_hits(rule.specifier, args, subdomains=True):
                return True
    return False
