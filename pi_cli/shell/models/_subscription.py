"""Models reached with a subscription signed in by ``pi login`` instead of an API key.

- ``anthropic/…`` with no ``ANTHROPIC_API_KEY``, ``--api-key`` or ``--api-base``: the Claude
  subscription, over the Anthropic transport.
- ``openai-codex/<model>``: ChatGPT's Codex backend (``chatgpt.com/backend-api/codex``), over
  the Responses transport.
- ``github-copilot/<model>``: the Copilot API (the host the Copilot token names), over the
  transport the model speaks there: Anthropic Messages for ``claude-*``, Responses for GPT-5
  and the Codex models, Chat Completions for the others (as the TypeScript pi's catalogue).

Each model carries a :class:`~pi_cli.shell.config.subscription.SubscriptionAuth`: its token is
renewed before it expires on whichever request comes first, mid-session included. The first
token is fetched here, so an expired or revoked sign-in is said at once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_core.providers import ResolvedModel

SUBSCRIPTION_DEFAULT = "anthropic/claude-sonnet-4-5"
"""The model of a Claude subscription when no model and no key say otherwise."""

SUBSCRIPTION_PROVIDERS = ("openai-codex", "github-copilot")  # setup.SUBSCRIBABLE: these + anthropic
"""Providers reached only through a subscription (no API key exists for them)."""


def signed_in_providers() -> list[str]:
    """Providers ``pi login`` holds tokens for (none when they cannot be read)."""
    from pi_cli.shell.config.auth import AuthError, AuthStore

    try:
        return AuthStore().providers()
    except AuthError:
        return []


def subscription_specs(signed: list[str]) -> list[str]:
    """``provider/model`` of every model the ``signed`` subscriptions offer."""
    from pi_cli.shell.config.subscription import SUBSCRIPTION_MODELS

    return [f"{p}/{n}" for p, names in SUBSCRIPTION_MODELS.items() if p in signed for n in names]


Resolve = Callable[[str, str | None], "ResolvedModel"]
"""(spec, api base) -> the model as pi's catalogue knows it (metadata, transport)."""


def signed_in(provider: str) -> bool:
    """Whether ``pi login`` stored tokens for ``provider`` (no network, no refresh)."""
    from pi_cli.shell.config.auth import AuthError, AuthStore

    try:
        return AuthStore().get(provider) is not None
    except AuthError:
        return False


def subscription_provider(
    chosen: str, api_key: str | None, api_base: str | None, env: Mapping[str, str]
) -> str | None:
    """The signed-in provider ``chosen`` is to use, or None (an API key applies)."""
    provider = chosen.partition("/")[0]
    if provider in SUBSCRIPTION_PROVIDERS:
        return provider
    if provider != "anthropic" or api_key or api_base or env.get("ANTHROPIC_API_KEY"):
        return None
    return "anthropic" if signed_in("anthropic") else None


def copilot_api(name: str) -> str:
    """Which API a Copilot model speaks (the TypeScript pi's catalogue)."""
    if name.startswith("claude"):
        return "anthropic-messages"
    if name.startswith("gpt-5") or "codex" in name:
        return "openai-responses"
    return "openai-completions"


def subscription_model(
    provider: str,
    chosen: str,
    api_base: str | None,
    network: Callable[[], Any],
    resolve: Resolve,
) -> ResolvedModel:
    """``chosen`` bound to ``provider``'s sign-in (ModelConfigError: not signed in, revoked)."""
    from pi_cli.shell.config.auth import AuthError
    from pi_cli.shell.config.oauth import PROVIDERS, refresher
    from pi_cli.shell.config.subscription import (
        CODEX_BASE_URL,
        COPILOT_HEADERS,
        SubscriptionAuth,
        copilot_base_url,
    )
    from pi_cli.shell.text.redaction import REDACTOR

    auth = SubscriptionAuth(
        provider, refresher(PROVIDERS[provider], network()), on_token=REDACTOR.add
    )
    try:
        credentials = auth.credentials()  # said now: not signed in, expired or revoked
    except AuthError as exc:
        from agent_core.providers import ModelConfigError

        raise ModelConfigError(str(exc)) from None
    name = chosen.partition("/")[2]
    update: dict[str, Any] = {
        "api_key": None,
        "auth": auth,
        "api_key_env": f"your sign-in (pi login {provider})",  # what a 401 says to check
    }
    if provider == "anthropic":
        model = resolve(chosen, None)
    elif provider == "openai-codex":
        model = resolve(f"openai/{name}", None)
        base = api_base or CODEX_BASE_URL
        update.update(api="openai-responses", base_url=base.rstrip("/"), supports_reasoning=True)
    else:
        api = copilot_api(name)
        meta = (
            f"anthropic/{name.replace('.', '-')}"
            if api == "anthropic-messages"
            else f"openai/{name}"
        )
        model = resolve(meta, None)
        base = api_base or copilot_base_url(credentials.access)
        update.update(api=api, base_url=base.rstrip("/"), headers=dict(COPILOT_HEADERS))
    if provider != "anthropic":
        update.update(id=chosen, provider=provider, name=name)
    return model.model_copy(update=update)
