"""Credentials that change during a session: a subscription's short-lived token, renewed
before it expires, asked for before every request rather than fixed when the model resolves.

The front end implements :class:`RequestAuth` (``pi login``'s tokens live there); a
:class:`~agent_core.providers.models.ResolvedModel` carries it as ``auth`` and each transport
merges its headers into the request. :meth:`RequestAuth.headers` may block (a refresh is an
HTTP request under a file lock): it runs in a worker thread unless :meth:`RequestAuth.ready`
says the current token is still fresh.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable


class AuthFailure(Exception):
    """The credentials cannot be had (revoked, expired, signed out); the message says what to
    do (``run pi login <provider>``). The request fails without retrying."""


@runtime_checkable
class RequestAuth(Protocol):
    """Per-request authentication headers."""

    def ready(self) -> bool:
        """True when :meth:`headers` will not block (no refresh is due)."""
        ...

    def headers(self, messages: Sequence[Any]) -> Mapping[str, str]:
        """The headers for a request carrying ``messages`` (refreshing the token first when
        it is about to expire). Raises :class:`AuthFailure`."""
        ...

    def secrets(self) -> tuple[str, ...]:
        """Every token handed out so far (scrubbed from provider error text)."""
        ...

    def rejected(self, headers: Mapping[str, str]) -> bool:
        """The server answered 401 to a request carrying ``headers`` (a token revoked before
        it expired, or renewed elsewhere): True when other credentials are now at hand, so
        the request is worth one more try. May block (a refresh)."""
        ...


async def auth_headers(auth: RequestAuth, messages: Sequence[Any]) -> dict[str, str]:
    """``auth``'s headers, off the event loop when a refresh is due."""
    if auth.ready():
        return dict(auth.headers(messages))
    return dict(await asyncio.to_thread(auth.headers, messages))
