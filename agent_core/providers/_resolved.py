"""A resolved model: what :func:`agent_core.providers.models.resolve_model` gives."""

from __future__ import annotations

import json
from typing import Any, ClassVar

from agent_core.providers._native import Api
from agent_core.providers.catalog import DEFAULT_CONTEXT_WINDOW, DEFAULT_MAX_OUTPUT
from agent_core.providers.errors import secrets_of
from agent_core.records import Record


class ResolvedModel(Record, frozen=True):  # type: ignore[misc]  # mypy: frozen under a mutable base
    """Everything needed to call one model. Secrets (``api_key``, ``env_secret``, ``headers``,
    which may carry auth, and ``auth``) never appear in repr or dumps.

    A record, not a pydantic model (issue 25): one is made on every start; its fields come
    typed from the catalogue and models.json, so it is not validated again.
    """

    id: str
    provider: str
    name: str
    api: Api
    base_url: str | None = None
    api_key: str | None = None
    api_key_env: str | None = None
    """What to tell the user to set or check when authentication fails (never the key)."""
    env_secret: str | None = None
    """A key litellm reads from the environment itself (e.g. ``GEMINI_API_KEY``); kept only so
    error messages can be scrubbed of it, never sent by us."""
    litellm_model: str = ""
    headers: dict[str, str] = {}
    context_window: int = DEFAULT_CONTEXT_WINDOW
    max_output_tokens: int = DEFAULT_MAX_OUTPUT
    input_cost: float = 0.0
    output_cost: float = 0.0
    cache_read_cost: float = 0.0
    cache_write_cost: float = 0.0
    supports_reasoning: bool = False
    known: bool = False
    """True when metadata came from the cost map or models.json (not defaults)."""
    auth: Any = None
    """A :class:`~agent_core.providers.request_auth.RequestAuth` asked for headers before each
    request (a subscription's token, renewed mid-session), or None."""

    SECRET_FIELDS: ClassVar[frozenset[str]] = frozenset(
        {"api_key", "env_secret", "headers", "auth"}
    )
    """Left out of :meth:`__repr__` and of every dump (``apiKey``, ``envSecret`` by alias)."""

    def __repr__(self) -> str:
        return f"ResolvedModel({', '.join(f'{k}={v!r}' for k, v in self.__rich_repr__())})"

    def __rich_repr__(self) -> Any:
        for name in self.__struct_fields__:
            if name not in self.SECRET_FIELDS:
                yield name, getattr(self, name)

    def model_dump(
        self, *, mode: str = "python", by_alias: bool = False, exclude_none: bool = False
    ) -> dict[str, Any]:
        """The model as a dict, its secrets left out."""
        dumped = super().model_dump(mode=mode, by_alias=by_alias, exclude_none=exclude_none)
        for key in (*self.SECRET_FIELDS, "apiKey", "envSecret"):
            dumped.pop(key, None)
        return dumped

    def model_dump_json(self) -> str:
        """:meth:`model_dump` as JSON."""
        return json.dumps(self.model_dump())

    @property
    def secret(self) -> str | None:
        """The key to redact from provider text: the one we send, else litellm's env key."""
        return self.api_key or self.env_secret

    @property
    def secrets(self) -> tuple[str, ...]:
        """Everything to scrub from provider text (the key, litellm's env key, auth headers)."""
        found = secrets_of(self.api_key, self.env_secret, self.headers)
        return found + tuple(self.auth.secrets()) if self.auth is not None else found
