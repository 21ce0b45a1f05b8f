"""A resolved model: what :func:`agent_core.providers.models.resolve_model` gives."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agent_core.providers._native import Api
from agent_core.providers.catalog import DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_OUTPUT
from agent_core.providers.errors import secrets_of


class ResolvedModel(BaseModel):
    """Everything needed to call one model. Secrets (``api_key``, ``env_secret``, ``headers``,
    which may carry auth) never appear in repr or dumps."""

    model_config = ConfigDict(frozen=True)

    id: str
    provider: str
    name: str
    api: Api
    base_url: str | None = None
    api_key: str | None = Field(default=None, exclude=True, repr=False)
    api_key_env: str | None = None
    """What to tell the user to set or check when authentication fails (never the key)."""
    env_secret: str | None = Field(default=None, exclude=True, repr=False)
    """A key litellm reads from the environment itself (e.g. ``GEMINI_API_KEY``); kept only so
    error messages can be scrubbed of it, never sent by us."""
    litellm_model: str = ""
    headers: dict[str, str] = Field(default_factory=dict, exclude=True, repr=False)
    context_window: int = DEFAULT_CONTEXT_WINDOW
    max_output_tokens: int = DEFAULT_MAX_OUTPUT
    input_cost: float = 0.0
    output_cost: float = 0.0
    cache_read_cost: float = 0.0
    cache_write_cost: float = 0.0
    supports_reasoning: bool = False
    known: bool = False
    """True when metadata came from the cost map or models.json (not defaults)."""
    auth: Any = Field(default=None, exclude=True, repr=False)
    """A :class:`~agent_core.providers.request_auth.RequestAuth` asked for headers before each
    request (a subscription's token, renewed mid-session), or None."""

    @property
    def secret(self) -> str | None:
        """The key to redact from provider text: the one we send, else litellm's env key."""
        return self.api_key or self.env_secret

    @property
    def secrets(self) -> tuple[str, ...]:
        """Everything to scrub from provider text (the key, litellm's env key, auth headers)."""
        found = secrets_of(self.api_key, self.env_secret, self.headers)
        return found + tuple(self.auth.secrets()) if self.auth is not None else found
