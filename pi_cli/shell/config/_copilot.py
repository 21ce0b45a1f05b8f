"""GitHub Copilot's side of ``pi login``: the GitHub token traded for a Copilot token, and the
models' policies accepted after sign-in, as the Copilot editor integrations do."""

from __future__ import annotations

import urllib.parse
from typing import Any

from pi_cli.shell.config._oauth_http import OAuthProvider, Say, client_for
from pi_cli.shell.config.auth import AuthError, Credentials


def exchange_copilot(
    provider: OAuthProvider, github_token: str, network: Any = None
) -> Credentials:
    """A Copilot token for a GitHub token (kept as the "refresh" token: it does not expire)."""
    import httpx

    from pi_cli.shell.config.subscription import COPILOT_HEADERS

    try:
        with client_for(network) as client:
            response = client.get(
                provider.exchange_url,
                headers={
                    "Authorization": f"Bearer {github_token}",
                    "Accept": "application/json",
                    **COPILOT_HEADERS,
                },
            )
    except httpx.HTTPError as exc:
        raise AuthError(
            f"{provider.title}: {provider.exchange_url} could not be reached ({exc})"
        ) from None
    if response.status_code in (401, 403):
        raise AuthError(
            f"{provider.title}: the GitHub sign-in was revoked or has no Copilot: run pi login {provider.name}"
        )
    data = response.json() if response.status_code < 400 else {}
    token, expires = data.get("token"), data.get("expires_at")
    if not isinstance(token, str) or not isinstance(expires, int):
        raise AuthError(f"{provider.title}: no Copilot token (HTTP {response.status_code})")
    return Credentials(token, github_token, expires * 1000)


def enable_copilot_models(
    provider: OAuthProvider, copilot: Credentials, say: Say, network: Any = None
) -> tuple[int, int]:
    """Accept each Copilot model's policy once, as the editors do at sign-in (Claude, Gemini
    and Grok models answer nothing until it is accepted). (enabled, tried); failures are only
    counted: an organization may keep a model off."""
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    from pi_cli.shell.config.subscription import (
        COPILOT_HEADERS,
        SUBSCRIPTION_MODELS,
        copilot_base_url,
    )

    base = (provider.models_url or copilot_base_url(copilot.access)).rstrip("/")
    headers = {
        **COPILOT_HEADERS,
        "Authorization": f"Bearer {copilot.access}",
        "openai-intent": "chat-policy",
        "x-interaction-type": "chat-policy",
    }
    names = SUBSCRIPTION_MODELS["github-copilot"]
    with client_for(network) as client:

        def enable(name: str) -> bool:
            url = f"{base}/models/{urllib.parse.quote(name, safe='')}/policy"
            try:
                answer = client.post(url, json={"state": "enabled"}, headers=headers)
                return bool(answer.is_success)
            except httpx.HTTPError:
                return False

        with ThreadPoolExecutor(max_workers=8) as pool:
            enabled = sum(pool.map(enable, names))
    say(f"Enabled {enabled} of {len(names)} Copilot models.")
    return enabled, len(names)
