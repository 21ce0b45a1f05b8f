"""Claude Code's model aliases (``sonnet``, ``opus``, ``haiku``, ``inherit``) for agent profiles.

An alias means "that tier at the provider configured now": with Anthropic, the newest Claude of
that family in the model catalogue; through OpenRouter, the same Claude there; with OpenAI and
Gemini, their models of that tier. Elsewhere (a local server, a custom provider) there is no
such tier: the current model is used and the user is told once. ``inherit`` is always the
current model. Anything else is a model spec as ``--model`` takes it.
"""

from __future__ import annotations

import re

ALIASES = ("sonnet", "opus", "haiku", "inherit")
_TIERS: dict[str, dict[str, str]] = {
    "openai": {"opus": "gpt-5", "sonnet": "gpt-5", "haiku": "gpt-5-mini"},
    "gemini": {"opus": "gemini-2.5-pro", "sonnet": "gemini-2.5-pro", "haiku": "gemini-2.5-flash"},
}
_FALLBACK = {"sonnet": "claude-sonnet-4-5", "opus": "claude-opus-4-1", "haiku": "claude-haiku-4-5"}


def is_alias(name: str) -> bool:
    """Whether ``name`` is one of Claude Code's aliases."""
    return name.strip().lower() in ALIASES


def resolve_alias(alias: str, provider: str, current: str) -> tuple[str, str | None]:
    """(model spec, note) for ``alias`` at ``provider``; ``current`` when it has no such tier.

    The note (or None) tells the user that the current model stands in.
    """
    tier = alias.strip().lower()
    if tier == "inherit":
        return current, None
    if provider == "anthropic":
        return f"anthropic/{newest_claude(tier, '')}", None
    if provider == "openrouter":
        return f"openrouter/anthropic/{newest_claude(tier, 'openrouter/anthropic/', '.')}", None
    names = _TIERS.get(provider)
    if names is not None:
        return f"{provider}/{names[tier]}", None
    return current, (
        f"model alias {tier!r} has no equivalent at provider {provider or 'unknown'}; "
        f"the sub-agent uses the current model {current}"
    )


def newest_claude(tier: str, prefix: str, dot: str = "-") -> str:
    """The newest ``claude-<tier>-X-Y`` (undated) in the catalogue, else a known one."""
    try:
        from agent_core.providers.catalog import cost_map

        keys = list(cost_map())
    except Exception:  # noqa: BLE001 - no catalogue: the fixed fallback
        keys = []
    pattern = re.compile(re.escape(prefix) + rf"claude-{tier}-(\d+)(?:{re.escape(dot)}(\d+))?$")
    best: tuple[int, int] | None = None
    for key in keys:
        found = pattern.fullmatch(key)
        if found:
            version = (int(found.group(1)), int(found.group(2) or 0))
            best = version if best is None or version > best else best
    if best is None:
        name = _FALLBACK[tier]
        return name if dot == "-" else name.replace("-4-", "-4.")
    major, minor = best
    return f"claude-{tier}-{major}{dot}{minor}" if minor else f"claude-{tier}-{major}"
