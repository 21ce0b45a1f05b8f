"""Model access: native OpenAI (Chat Completions, Responses) and Anthropic transports, litellm
for everything else.

Importing this package is cheap (httpx + msgspec); litellm is imported only when a
litellm-routed request is actually made.

Typical use::

    model = resolve_model("anthropic/claude-sonnet-4-5")
    agent = Agent(make_stream_fn(model), model=model.id, ...)
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from agent_core.providers.catalog import ModelConfigError, pi_home
from agent_core.providers.errors import CONTEXT_OVERFLOW_PREFIX, is_context_overflow
from agent_core.providers.models import (
    ResolvedModel,
    compute_cost,
    default_model_spec,
    list_models,
    resolve_model,
)
from agent_core.providers.retry import RetryConfig
from agent_core.stream import LlmContext, StreamFn, StreamOptions

if TYPE_CHECKING:
    from agent_core.net import NetworkConfig  # ssl loads with the first stream fn, not here

DEFAULT_IDLE_TIMEOUT_S = 120.0
"""Silence tolerated between two bytes of a response once it has begun."""
DEFAULT_FIRST_BYTE_TIMEOUT_S = 600.0
"""Wait tolerated for the first byte of a remote response (local servers: no limit)."""


def make_stream_fn(
    model: ResolvedModel,
    *,
    retry: RetryConfig | None = None,
    timeout_s: float | None = None,
    connect_timeout_s: float = 10.0,
    idle_timeout_s: float | None = DEFAULT_IDLE_TIMEOUT_S,
    first_byte_timeout_s: float | None = None,
    network: NetworkConfig | None = None,
) -> StreamFn:
    """A :class:`~agent_core.stream.StreamFn` bound to ``model``.

    Args:
        model: from :func:`resolve_model`; ``model.api`` picks the transport.
        retry: retry policy for 429/5xx/overloaded/stalls (default: 3 retries, 2 s backoff).
        idle_timeout_s: the longest silence between bytes once a response has begun (any byte
            counts, SSE comments included); ``None`` or 0: no limit.
        first_byte_timeout_s: the longest wait for a response's first byte. ``None``: 600 s,
            and no limit for a local endpoint (a model on a CPU may think for minutes); 0: no
            limit.
        timeout_s: sets both at once (a shorthand, for tests).
        connect_timeout_s: connection timeout.
        network: proxy and extra CA settings (:class:`agent_core.net.NetworkConfig`).

    Both timeouts fail the attempt with a retryable error, retried under ``retry`` while
    nothing has been shown yet. The returned function never raises for request or model
    failures: the final message has ``stop_reason`` ``error``/``aborted`` and a one-line
    ``error_message``.

    It pools one HTTP client per event loop. ``await stream_fn.aclose()`` (an attribute of the
    returned function) closes the running loop's client; call it before that loop ends (e.g.
    at the end of the coroutine given to ``asyncio.run``), else its sockets leak until exit.
    Front ends holding any StreamFn can use ``getattr(stream_fn, "aclose", None)``.

    Remote endpoints go through ``network.proxy`` or HTTPS_PROXY (NO_PROXY honoured) and trust
    the system store plus ``network.caFile``; local endpoints (plain http, loopback) are reached
    directly.
    """
    from agent_core.providers._transport import (  # httpx loads with the first stream fn
        Timeouts,
        TransportConfig,
        is_local_endpoint,
    )

    local = is_local_endpoint(model.base_url)
    if timeout_s is not None:
        idle_timeout_s = first_byte_timeout_s = timeout_s
    elif first_byte_timeout_s is None:
        first_byte_timeout_s = None if local else DEFAULT_FIRST_BYTE_TIMEOUT_S
    config = TransportConfig(
        retry=retry or RetryConfig(),
        timeouts=Timeouts(first_byte_s=first_byte_timeout_s or None, idle_s=idle_timeout_s or None),
        connect_timeout_s=connect_timeout_s,
        plain_http=(model.base_url or "").startswith("http://"),
        trust_env=not local,
        base_url=model.base_url or "",
        network=network,
    )

    def stream_fn(context: LlmContext, options: StreamOptions) -> AsyncIterator[Any]:
        if model.api == "anthropic-messages":
            from agent_core.providers.anthropic import stream_anthropic

            return stream_anthropic(model, context, options, config)
        if model.api == "openai-completions":
            from agent_core.providers.openai_compat import stream_openai

            return stream_openai(model, context, options, config)
        if model.api == "openai-responses":
            from agent_core.providers.responses import stream_responses

            return stream_responses(model, context, options, config)
        from agent_core.providers.litellm_stream import (
            stream_litellm,  # litellm itself loads on first call
        )

        return stream_litellm(model, context, options, config)

    stream_fn.model = model  # type: ignore[attr-defined]  # handy for front ends and tests
    stream_fn.aclose = config.aclose  # type: ignore[attr-defined]
    stream_fn.config = config  # type: ignore[attr-defined]  # for tests and diagnostics
    return stream_fn


__all__ = [
    "CONTEXT_OVERFLOW_PREFIX",
    "DEFAULT_FIRST_BYTE_TIMEOUT_S",
    "DEFAULT_IDLE_TIMEOUT_S",
    "ModelConfigError",
    "ResolvedModel",
    "RetryConfig",
    "compute_cost",
    "default_model_spec",
    "is_context_overflow",
    "list_models",
    "make_stream_fn",
    "pi_home",
    "resolve_model",
]
