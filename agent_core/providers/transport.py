"""Shared HTTP plumbing of the native transports: client reuse, retries, SSE JSON, final message."""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_core.messages import AssistantMessage, Usage
from agent_core.providers._httpx import httpx
from agent_core.providers.errors import Aborted, ProviderError, http_error, one_line, redact
from agent_core.providers.models import ResolvedModel, compute_cost
from agent_core.providers.retry import RetryConfig, parse_retry_after, with_retries
from agent_core.providers.sse import iter_sse, pump
from agent_core.stream import AssistantMessageBuilder, StreamOptions


@dataclass
class TransportConfig:
    """Per-stream-fn settings: retries and timeouts (seconds)."""

    retry: RetryConfig = field(default_factory=RetryConfig)
    timeout_s: float = 600.0
    connect_timeout_s: float = 10.0
    _clients: dict[int, tuple[asyncio.AbstractEventLoop, httpx.AsyncClient]] = field(default_factory=dict, repr=False)

    plain_http: bool = False

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
        timeout = httpx.Timeout(self.timeout_s, connect=self.connect_timeout_s)
        # Loading the CA bundle costs ~0.1 s; a plain-http endpoint (local server) never uses it.
        verify: Any = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT) if self.plain_http else True
        client = httpx.AsyncClient(timeout=timeout, trust_env=False, verify=verify)
        self._clients[id(loop)] = (loop, client)
        return client


class Accumulator(Protocol):
    """Turns wire events into our stream events, folding them into ``builder``."""

    builder: AssistantMessageBuilder
    usage: Usage

    def feed(self, event: str, data: Any) -> list[Any]: ...

    def finish(self) -> tuple[list[Any], AssistantMessage]: ...


def describe_network_error(model: ResolvedModel, exc: Exception, timeout_s: float) -> ProviderError:
    """A one-line message for an httpx transport failure."""
    where = model.base_url or model.provider
    if isinstance(exc, httpx.ConnectTimeout):
        return ProviderError(f"Timed out connecting to {model.provider} at {where}")
    if isinstance(exc, httpx.TimeoutException):
        return ProviderError(f"Request to {model.provider} timed out: no data for {timeout_s:g}s")
    if isinstance(exc, httpx.ConnectError):
        return ProviderError(one_line(f"Could not connect to {model.provider} at {where}: {exc}"))
    detail = redact(str(exc) or type(exc).__name__, model.api_key)
    return ProviderError(one_line(f"Connection to {model.provider} dropped mid-stream: {detail}"))


async def sse_json_source(
    model: ResolvedModel,
    url: str,
    headers: dict[str, str],
    body: dict[str, Any],
    options: StreamOptions,
    config: TransportConfig,
) -> AsyncIterator[tuple[str, Any]]:
    """POST ``body`` and yield ``(event name, parsed JSON or "[DONE]")``, retrying transient errors.

    Raises ProviderError (one-line, key-free) or Aborted.
    """
    client = config.client()

    async def open_response() -> httpx.Response:
        request = client.build_request("POST", url, headers=headers, json=body)
        try:
            response = await client.send(request, stream=True)
        except httpx.TransportError as exc:
            error = describe_network_error(model, exc, config.timeout_s)
            # A reset before any byte arrived is worth another try; refused connections are not.
            error.retryable = isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError)
            raise error from None
        if response.status_code >= 400:
            try:
                raw = await response.aread()
            except httpx.HTTPError:
                raw = b""
            finally:
                await response.aclose()
            raise http_error(model.provider, response.status_code, raw, api_key=model.api_key,
                             key_env=model.api_key_env, retry_after=parse_retry_after(response.headers))
        return response

    async def source(put: Callable[[Any], None]) -> None:
        response = await with_retries(open_response, config.retry, options)
        try:
            async for sse in iter_sse(response.aiter_lines()):
                if sse.data.strip() == "[DONE]":
                    put((sse.event, "[DONE]"))
                    continue
                try:
                    put((sse.event, json.loads(sse.data)))
                except ValueError:
                    snippet = one_line(redact(sse.data, model.api_key), 80)
                    raise ProviderError(f"Malformed SSE data from {model.provider}: {snippet!r}") from None
        except httpx.TransportError as exc:
            raise describe_network_error(model, exc, config.timeout_s) from None
        finally:
            await response.aclose()

    async for item in pump(source, options.cancel):
        yield item


async def run_accumulated(
    model: ResolvedModel,
    acc: Accumulator,
    items: Callable[[], AsyncIterator[tuple[str, Any]]],
) -> AsyncIterator[Any]:
    """Drive ``acc`` over ``items()``; always end with the final AssistantMessage (never raise)."""
    final: AssistantMessage
    try:
        async for event, data in items():
            for out in acc.feed(event, data):
                yield out
        closing, final = acc.finish()
        for out in closing:
            yield out
    except Aborted:
        final = _end(model, acc, "aborted", "Request was aborted")
    except ProviderError as error:
        final = _end(model, acc, "error", error.message)
    except Exception as exc:  # noqa: BLE001 - the StreamFn contract: never raise
        detail = one_line(redact(f"{type(exc).__name__}: {exc}", model.api_key))
        final = _end(model, acc, "error", f"Unexpected failure talking to {model.provider}: {detail}")
    yield final


def finalize_usage(model: ResolvedModel, usage: Usage) -> Usage:
    """Fill totals and cost."""
    usage = usage.model_copy()
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write
    usage.cost = compute_cost(model, usage)
    return usage


def _end(model: ResolvedModel, acc: Accumulator, reason: Any, message: str) -> AssistantMessage:
    return acc.builder.finish(reason, usage=finalize_usage(model, acc.usage), error_message=message)
