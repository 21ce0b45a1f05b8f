"""Shared HTTP plumbing of the native transports: client reuse, retries, SSE JSON, final message."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import ssl
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit

from agent_core.messages import AssistantMessage, Usage
from agent_core.providers._httpx import httpx
from agent_core.providers.errors import Aborted, ProviderError, http_error, one_line, redact
from agent_core.providers.models import ResolvedModel, compute_cost
from agent_core.providers.retry import RetryConfig, parse_retry_after, with_retries
from agent_core.providers.sse import SseLineTooLong, iter_sse, iter_sse_lines, pump
from agent_core.stream import AssistantMessageBuilder, StreamOptions


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

    ``trust_env`` lets httpx honour HTTPS_PROXY/NO_PROXY/SSL_CERT_FILE; it is off for local
    endpoints, where a stray proxy setting would only break requests to localhost.
    """

    retry: RetryConfig = field(default_factory=RetryConfig)
    timeout_s: float = 600.0
    connect_timeout_s: float = 10.0
    _clients: dict[int, tuple[asyncio.AbstractEventLoop, httpx.AsyncClient]] = field(
        default_factory=dict, repr=False
    )

    plain_http: bool = False
    trust_env: bool = True

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
        client = httpx.AsyncClient(timeout=timeout, trust_env=self.trust_env, verify=verify)
        self._clients[id(loop)] = (loop, client)
        return client

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
) -> AsyncGenerator[tuple[str, Any], None]:
    """POST ``body`` and yield ``(event name, parsed JSON or "[DONE]")``, retrying transient errors.

    Raises ProviderError (one-line, key-free) or Aborted. Retrying is the caller's job
    (:func:`run_accumulated`), so errors inside the stream share the same policy.
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
            raise http_error(
                model.provider,
                response.status_code,
                raw,
                api_key=model.api_key,
                key_env=model.api_key_env,
                retry_after=parse_retry_after(response.headers),
            )
        return response

    async def source(put: Callable[[Any], None]) -> None:
        response = await open_response()
        try:
            async for sse in iter_sse(iter_sse_lines(response.aiter_bytes())):
                if sse.data.strip() == "[DONE]":
                    put((sse.event, "[DONE]"))
                    continue
                try:
                    put((sse.event, json.loads(sse.data)))
                except ValueError:
                    snippet = one_line(redact(sse.data, model.api_key), 80)
                    raise ProviderError(
                        f"Malformed SSE data from {model.provider}: {snippet!r}"
                    ) from None
        except httpx.TransportError as exc:
            raise describe_network_error(model, exc, config.timeout_s) from None
        except SseLineTooLong as exc:
            raise ProviderError(f"Malformed SSE stream from {model.provider}: {exc}") from None
        finally:
            await response.aclose()

    async for item in pump(source, options.cancel):
        yield item


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
        detail = one_line(redact(f"{type(exc).__name__}: {exc}", model.api_key))
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
