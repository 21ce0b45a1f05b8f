"""A subscription's credentials as a transport asks for them: before every request, renewed
before they expire, once for every concurrent request.

:class:`SubscriptionAuth` implements :class:`agent_core.providers.request_auth.RequestAuth`.
Its token is kept in memory while fresh (no file read per request); when it is within
:data:`~pi_cli.shell.config.auth.REFRESH_MARGIN_MS` of expiring, the first request to notice
renews it under a thread lock (two requests at once: one refresh, the second uses its result)
and :meth:`AuthStore.access_token` renews under the file lock after reading the file again
(two pi processes: one refresh, the other uses the token the first stored).

The headers each provider wants are those of the TypeScript pi (``openai-codex``,
``github-copilot``) and of Claude Code (``anthropic``).
"""

from __future__ import annotations

import base64
import json
import platform
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pi_cli.shell.config.auth import AuthError, AuthStore, Credentials

COPILOT_HEADERS: dict[str, str] = {
    "User-Agent": "GitHubCopilotChat/0.35.0",
    "Editor-Version": "vscode/1.107.0",
    "Editor-Plugin-Version": "copilot-chat/0.35.0",
    "Copilot-Integration-Id": "vscode-chat",
}
"""What the Copilot API wants to see of its client (the VS Code extension's identity)."""

CODEX_BASE_URL = "https://chatgpt.com/backend-api/codex"
COPILOT_BASE_URL = "https://api.individual.githubcopilot.com"
_OPENAI_AUTH_CLAIM = "https://api.openai.com/auth"

SUBSCRIPTION_MODELS: dict[str, tuple[str, ...]] = {
    "openai-codex": (
        "gpt-5.1",
        "gpt-5.1-codex-max",
        "gpt-5.1-codex-mini",
        "gpt-5.2",
        "gpt-5.2-codex",
        "gpt-5.3-codex",
        "gpt-5.3-codex-spark",
        "gpt-5.4",
    ),
    "github-copilot": (
        "claude-haiku-4.5",
        "claude-opus-4.5",
        "claude-opus-4.6",
        "claude-sonnet-4",
        "claude-sonnet-4.5",
        "claude-sonnet-4.6",
        "gemini-2.5-pro",
        "gemini-3-flash-preview",
        "gemini-3-pro-preview",
        "gemini-3.1-pro-preview",
        "gpt-4.1",
        "gpt-4o",
        "gpt-5",
        "gpt-5-mini",
        "gpt-5.1",
        "gpt-5.1-codex",
        "gpt-5.1-codex-max",
        "gpt-5.1-codex-mini",
        "gpt-5.2",
        "gpt-5.2-codex",
        "gpt-5.3-codex",
        "gpt-5.4",
        "grok-code-fast-1",
    ),
}
"""The models each subscription offers, as the TypeScript pi's catalogue lists them (offered in
the model picker when signed in; any other name is tried as given)."""


Shape = Callable[[Credentials, Sequence[Any]], dict[str, str]]


def anthropic_headers(credentials: Credentials, messages: Sequence[Any]) -> dict[str, str]:
    """A Claude subscription's headers."""
    return {
        "Authorization": f"Bearer {credentials.access}",
        "anthropic-beta": "oauth-2025-04-20",
    }


def codex_account_id(credentials: Credentials) -> str:
    """The ChatGPT account of a Codex sign-in: stored at login, else read from the token."""
    stored = credentials.extra.get("accountId")
    if isinstance(stored, str) and stored:
        return stored
    try:
        payload = credentials.access.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        account = claims[_OPENAI_AUTH_CLAIM]["chatgpt_account_id"]
    except (IndexError, KeyError, TypeError, ValueError):
        account = None
    if not isinstance(account, str) or not account:
        raise AuthError(
            "the ChatGPT sign-in names no account (not a Codex token): run pi login openai-codex"
        )
    return account


def codex_headers(credentials: Credentials, messages: Sequence[Any]) -> dict[str, str]:
    """A ChatGPT (Codex) subscription's headers."""
    return {
        "Authorization": f"Bearer {credentials.access}",
        "chatgpt-account-id": codex_account_id(credentials),
        "originator": "pi",
        "OpenAI-Beta": "responses=experimental",
        "User-Agent": f"pi ({platform.system().lower()} {platform.release()}; {platform.machine()})",
    }


def copilot_headers(credentials: Credentials, messages: Sequence[Any]) -> dict[str, str]:
    """A Copilot token's headers, and what the Copilot API asks of each request: who started
    it (the user, or the agent following up on a tool result) and whether it carries images."""
    last = messages[-1] if messages else None
    headers = {
        **COPILOT_HEADERS,
        "Authorization": f"Bearer {credentials.access}",
        "X-Initiator": "user" if last is None or getattr(last, "role", "") == "user" else "agent",
        "Openai-Intent": "conversation-edits",
    }
    if any(_has_image(message) for message in messages):
        headers["Copilot-Vision-Request"] = "true"
    return headers


def _has_image(message: Any) -> bool:
    if getattr(message, "role", "") not in ("user", "toolResult"):
        return False
    content = getattr(message, "content", None)
    return isinstance(content, list) and any(getattr(b, "type", "") == "image" for b in content)


def copilot_base_url(token: str) -> str:
    """The API host a Copilot token is for (its ``proxy-ep`` field, ``proxy.`` -> ``api.``)."""
    for field in token.split(";"):
        name, _, value = field.partition("=")
        host = value.strip()
        if name.strip() == "proxy-ep" and host and all(c.isalnum() or c in ".-" for c in host):
            return "https://" + ("api." + host.removeprefix("proxy."))
    return COPILOT_BASE_URL


SHAPES: dict[str, Shape] = {
    "anthropic": anthropic_headers,
    "openai-codex": codex_headers,
    "github-copilot": copilot_headers,
}


class SubscriptionAuth:
    """``provider``'s signed-in credentials for :class:`RequestAuth` (see the module doc)."""

    def __init__(
        self,
        provider: str,
        renew: Callable[[Credentials], Credentials],
        *,
        store: AuthStore | None = None,
        on_token: Callable[[str], None] | None = None,
    ) -> None:
        self.provider = provider
        self._renew = renew
        self._store = store or AuthStore()
        self._shape = SHAPES[provider]
        self._on_token = on_token
        self._lock = threading.Lock()
        self._current: Credentials | None = None
        self._tokens: list[str] = []
        self._forced = ""  # the token a 401 made us fetch (not renewed again if refused)

    def ready(self) -> bool:
        current = self._current
        return current is not None and current.fresh()

    def credentials(self) -> Credentials:
        """Fresh credentials (renewed at most once however many requests ask at once)."""
        current = self._current
        if current is not None and current.fresh():
            return current
        with self._lock:
            current = self._current
            if current is not None and current.fresh():
                return current
            current = self._store.access_token(self.provider, self._renew)
            self._remember(current)
            return current

    def rejected(self, headers: Mapping[str, str]) -> bool:
        """A 401 for ``headers``: renew once (a token obtained this way and refused too is
        not renewed again: the sign-in itself is the problem)."""
        sent = dict(headers).get("Authorization", "").removeprefix("Bearer ")
        with self._lock:
            current = self._current
            if current is not None and current.access != sent:
                return True  # renewed meanwhile by another request
            if not sent or sent == self._forced:
                return False
            renewed = self._store.access_token(self.provider, self._renew, refused=sent)
            if renewed.access == sent:
                return False
            self._remember(renewed)
            self._forced = renewed.access
            return True

    def _remember(self, current: Credentials) -> None:
        if current.access not in self._tokens:
            self._tokens.append(current.access)
            if self._on_token is not None:
                self._on_token(current.access)
        self._current = current

    def headers(self, messages: Sequence[Any]) -> Mapping[str, str]:
        return self._shape(self.credentials(), messages)

    def secrets(self) -> tuple[str, ...]:
        return tuple(self._tokens)
