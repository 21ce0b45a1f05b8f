"""Model access: native OpenAI-compatible and Anthropic transports, litellm for everything else.

Importing this package is cheap (httpx + pydantic); litellm is imported only when a
litellm-routed request is actually made.

Typical use::

    model = resolve_model("anthropic/claude-sonnet-4-5")
    agent = Agent(make_stream_fn(model), model=model.id, ...)
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from agent_core.providers.catalog import ModelConfigError
from agent_core.providers.errors import CONTEXT_OVERFLOW_PREFIX, is_context_overflow
from agent_core.providers.models import (
    ResolvedModel,
    compute_cost,
    default_model_spec,
    list_models,
    pi_home,
    resolve_model,
)
from agent_core.providers.retry import RetryConfig
from agent_core.stream import LlmContext, StreamFn, StreamOptions


def make_stream_fn(
    model: ResolvedModel,
    *,
    retry: RetryConfig | None = None,
    timeout_s: float = 600.0,
    connect_timeout_s: float = 10.0,
) -> StreamFn:
    """A :class:`~agent_core.stream.StreamFn` bound to ``model``.

    Args:
        model: from :func:`resolve_model`; ``model.api`` picks the transport.
        retry: retry policy for 429/5xx/overloaded (default: 3 retries, 2 s base backoff).
        timeout_s: read timeout — the longest silence tolerated while waiting for data.
        connect_timeout_s: connection timeout.

    The returned function never raises for request or model failures: the final message has
    ``stop_reason`` ``error``/``aborted`` and a one-line ``error_message``.

    It pools one HTTP client per event loop. ``await stream_fn.aclose()`` (an attribute of the
    returned function) closes the running loop's client; call it before that loop ends (e.g.
    at the end of the coroutine given to ``asyncio.run``), else its sockets leak until exit.
    Front ends holding any StreamFn can use ``getattr(stream_fn, "aclose", None)``.

    HTTPS endpoints honour HTTPS_PROXY/NO_PROXY/SSL_CERT_FILE; local endpoints (plain http,
    loopback) ignore proxy settings.
    """
    from agent_core.providers.transport import (  # httpx loads with the first stream fn
        TransportConfig,
        is_local_endpoint,
    )

    config = TransportConfig(
        retry=retry or RetryConfig(),
        timeout_s=timeout_s,
        connect_timeout_s=connect_timeout_s,
        plain_http=(model.base_url or "").startswith("http://"),
        trust_env=not is_local_endpoint(model.base_url),
    )

    def stream_fn(context: LlmContext, options: StreamOptions) -> AsyncIterator[Any]:
        if model.api == "anthropic-messages":
            from agent_core.providers.anthropic import stream_anthropic

            return stream_anthropic(model, context, options, config)
        if model.api == "openai-completions":
            from agent_core.providers.openai_compat import stream_openai

            return stream_openai(model, context, options, config)
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
