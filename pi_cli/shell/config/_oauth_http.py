"""What ``pi login``'s flows share: a provider's description and the HTTP client (through the
``network`` settings' proxy and trust)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Say = Callable[[str], None]


@dataclass(frozen=True)
class OAuthProvider:
    """One sign-in: its flow (``pkce`` or ``device``) and endpoints."""

    name: str
    title: str
    flow: str
    client_id: str
    token_url: str
    authorize_url: str = ""
    device_url: str = ""
    scope: str = ""
    callback_port: int = 0
    callback_path: str = "/callback"
    redirect_host: str = "localhost"
    json_body: bool = False  # Anthropic's token endpoint takes JSON, the others a form
    extra_params: dict[str, str] = field(default_factory=dict)
    exchange_url: str = ""  # Copilot: the GitHub token buys a short-lived Copilot token
    models_url: str = ""  # Copilot: where models are enabled (default: the token's API host)

    @property
    def redirect_uri(self) -> str:
        return f"http://{self.redirect_host}:{self.callback_port}{self.callback_path}"


def client_for(network: Any = None) -> Any:
    """An httpx client through the ``network`` settings' proxy and trust."""
    import httpx

    from agent_core.net import ssl_context

    return httpx.Client(timeout=30.0, verify=ssl_context(network), trust_env=True)
