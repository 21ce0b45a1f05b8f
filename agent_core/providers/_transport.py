"""Shared plumbing of the native transports: client reuse, retries, the final message.

The HTTP request itself and everything a server may answer is :mod:`.http_source`.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import ssl
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar
from urllib.parse import urlsplit

from agent_core.messages import AssistantMessage, Usage

if TYPE_CHECKING:
    from agent_core.net import NetworkConfig
from agent_core.providers._wire.clients import async_client, httpx, plain_http_transport
from agent_core.providers._wire.http_source import sse_json_source
from agent_core.providers._wire.stall import Timeouts
from agent_core.providers.errors import Aborted, ProviderError, one_line, redact
from agent_core.providers.models import ResolvedModel, compute_cost
from agent_core.providers.retry import RetryConfig, with_retries
from agent_core.stream import AssistantMessageBuilder, StreamOptions

T = TypeVar("T")

__all__ = ["Timeouts", "TransportConfig", "is_local_endpoint", "run_accumulated", "sse_json_source"]


def is_local_endpoint(base_url: str | None) -> bool:
    """True for plain-http or loopback endpoints (local servers: no proxy, no CA bundle needed)."""
    if not base_url:
        return False
    parts = urlsplit(base_url)
    if parts.scheme == "http":
        return True
    host = (parts.hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass
class TransportConfig:
    """Per-stream-fn settings: retries and timeouts (seconds), and the pooled HTTP clients.

    ``timeouts`` bound the wait for a response's first byte and the silence between bytes
    (:mod:`.stall`); httpx itself only bounds connecting. ``trust_env``: the endpoint is
    remote, so ``network`` (settings) and HTTPS_PROXY/NO_PROXY choose its proxy; it is off for
    local endpoints, where a stray proxy setting would only break requests to localhost. The
    trust is the system store plus ``network.caFile`` (:mod:`agent_core.net`).
    """

    retry: RetryConfig = field(default_factory=RetryConfig)
    timeouts: Timeouts = field(default_factory=Timeouts)
    connect_timeout_s: float = 10.0
    _clients: dict[int, tuple[asyncio.AbstractEventLoop, httpx.AsyncClient]] = field(
        default_factory=dict, repr=False
    )

    plain_http: bool = False
    trust_env: bool = True
    base_url: str = ""
    network: NetworkConfig | None = None
    proxy: str | None = field(default=None, init=False)
    # The conversation's cached request forms (:mod:`._request_forms`), one per wire format.
    _forms: dict[str, Any] = field(default_factory=dict, repr=False)

    def forms(self, kind: str, make: Callable[[], T]) -> T:
        """The request-form cache ``kind`` of this stream function (made on first use)."""
        held = self._forms.get(kind)
        if held is None:
            held = self._forms[kind] = make()
        return held

    def client(self) -> httpx.AsyncClient:
        """An AsyncClient for the running loop, reused across calls (keeps connections warm)."""
        loop = asyncio.get_running_loop()
        held = self._clients.get(id(loop))
        if held is not None and held[0] is loop and not held[1].is_closed:
            return held[1]
        # Clients are bound to the loop that opened their connections; drop ones of dead loops.
        for key, (old_loop, _) in list(self._clients.items()):
            if old_loop.is_closed():
                del self._clients[key]
        # No read timeout here: the stall watch of each response does it (first byte, idle).
        timeout = httpx.Timeout(None, connect=self.connect_timeout_s, write=60.0)
        # Local endpoints are reached directly; others through network.proxy or *_PROXY.
        self.proxy = None
        if self.trust_env:
            from agent_core.net import proxy_for

            self.proxy = proxy_for(self.base_url, self.network)
        if self.plain_http and self.proxy is None:  # a local server: no certificate, no TLS
            client = async_client(
                timeout=timeout, trust_env=False, transport=plain_http_transport()
            )
        else:
            # Loading the CA bundle costs ~0.1 s: only for an endpoint that may need it.
            verify: Any = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            if not self.plain_http:
                from agent_core.net import ssl_context  # the system store (+ network.caFile)

                verify = ssl_context(self.network)
            client = async_client(timeout=timeout, trust_env=False, verify=verify, proxy=self.proxy)
        self._clients[id(loop)] = (loop, client)
        return client

    def explain(self, exc: BaseException) -> str | None:
        """A proxy or certificate failure in words (see :func:`agent_core.net.describe_failure`)."""
        if self.plain_http and self.proxy is None:
            return None  # a local server: no proxy, no certificate
        from agent_core.net import describe_failure

        return describe_failure(exc, self.base_url, self.proxy, self.network)

    async def aclose(self) -> None:
        """Close the client of the running loop (its sockets) and forget clients of dead loops.

        Call before the loop ends (``asyncio.run`` returning); a later request opens a new client.
        """
        loop = asyncio.get_running_loop()
        held = self._clients.pop(id(loop), None)
        for key, (old_loop, _) in list(self._clients.items()):
            if old_loop.is_closed():
                del self._clients[key]
        if held is not None and held[0] is loop and not held[1].is_closed:
            await held[1].aclose()


class Accumulator(Protocol):
    """Turns wire events into our stream events, folding them into ``builder``."""

    builder: AssistantMessageBuilder
    usage: Usage

    def feed(self, event: str, data: Any) -> list[Any]: ...

    def finish(self) -> tuple[list[Any], AssistantMessage]: ...


async def run_accumulated(
    model: ResolvedModel,
    make_acc: Callable[[], Accumulator],
    items: Callable[[], AsyncGenerator[tuple[str, Any], None]],
    retry: RetryConfig,
    options: StreamOptions,
) -> AsyncIterator[Any]:
    """Drive a fresh accumulator over ``items()``; always end with the final AssistantMessage.

    Never raises. Transient failures (HTTP 429/5xx, an ``overloaded_error`` inside a 200 stream)
    are retried under ``retry`` as long as nothing has been yielded yet; each attempt calls
    ``items()`` again with a new accumulator.
    """
    current = [make_acc()]  # the latest attempt's accumulator (its partial message on failure)

    async def attempt() -> tuple[AsyncGenerator[tuple[str, Any], None], list[Any]]:
        current[0] = make_acc()
        return await _first_output(current[0], items())

    final: AssistantMessage
    try:
        stream, first = await with_retries(attempt, retry, options)
        acc = current[0]
        # aclosing: the HTTP response is released at once, also when our consumer stops early.
        async with contextlib.aclosing(stream):
            for out in first:
                yield out
            async for event, data in stream:
                for out in acc.feed(event, data):
                    yield out
        closing, final = acc.finish()
        for out in closing:
            yield out
    except Aborted:
        final = _end(model, current[0], "aborted", "Request was aborted")
    except ProviderError as error:
        final = _end(model, current[0], "error", error.message)
    except Exception as exc:  # noqa: BLE001 - the StreamFn contract: never raise
        detail = one_line(redact(f"{type(exc).__name__}: {exc}", model.secrets))
        final = _end(
            model, current[0], "error", f"Unexpected failure talking to {model.provider}: {detail}"
        )
    yield final


async def _first_output(
    acc: Accumulator, stream: AsyncGenerator[tuple[str, Any], None]
) -> tuple[AsyncGenerator[tuple[str, Any], None], list[Any]]:
    """Read ``stream`` until ``acc`` produces its first events (or the stream ends).

    Errors up to that point (HTTP status, an error event before any content) are still
    retryable: the caller has seen nothing. The stream is closed when this raises.
    """
    try:
        async for event, data in stream:
            out = acc.feed(event, data)
            if out:
                return stream, out
        return stream, []
    except BaseException:
        with contextlib.suppress(Exception):
            await stream.aclose()
        raise


def finalize_usage(model: ResolvedModel, usage: Usage) -> Usage:
    """Fill totals and cost."""
    usage = usage.model_copy()
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
    usage.cost = compute_cost(model, usage)
    return usage


def _end(model: ResolvedModel, acc: Accumulator, reason: Any, message: str) -> AssistantMessage:
    return acc.builder.finish(reason, usage=finalize_usage(model, acc.usage), error_message=message)
