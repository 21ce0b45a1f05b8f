"""POST one request and read its answer as SSE JSON, saying exactly what came back otherwise.

What a server sends instead of a stream is reported as such (status, content type, a redirect's
target), never as a dropped connection; a complete JSON answer to a streaming request (a
gateway that ignores ``stream: true``) is used as if it had been streamed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import Any, Protocol

from agent_core.providers._request_forms import encode_body
from agent_core.providers._wire.clients import httpx
from agent_core.providers._wire.sse import SseLineTooLong, iter_sse, iter_sse_lines, pump
from agent_core.providers._wire.stall import StallWatch, Timeouts
from agent_core.providers.errors import (
    ProviderError,
    body_message,
    http_error,
    one_line,
    redact,
    stream_error,
)
from agent_core.providers.models import ResolvedModel
from agent_core.providers.retry import parse_retry_after
from agent_core.stream import StreamOptions


class HttpConfig(Protocol):
    """What a request needs of :class:`~agent_core.providers._transport.TransportConfig`."""

    timeouts: Timeouts

    def client(self) -> httpx.AsyncClient: ...

    def explain(self, exc: BaseException) -> str | None:
        """A proxy or certificate failure in words (which host, which proxy, which CA)."""
        ...


WholeBody = Callable[[Any], list[tuple[str, Any]] | None]
"""A complete (non-streamed) JSON answer -> the items its stream would have carried, or None."""
MAX_WHOLE_BODY = 32 * 1024 * 1024


async def _put_events(
    model: ResolvedModel, response: httpx.Response, watch: StallWatch, put: Callable[[Any], None]
) -> None:
    """Each SSE event of ``response`` as ``(event name, parsed JSON or "[DONE]")``."""
    async for sse in iter_sse(iter_sse_lines(response.aiter_bytes(), watch.touch)):
        if sse.data.strip() == "[DONE]":
            put((sse.event, "[DONE]"))
            continue
        try:
            put((sse.event, json.loads(sse.data)))
        except ValueError:
            snippet = one_line(redact(sse.data, model.secrets), 80)
            raise ProviderError(f"Malformed SSE data from {model.provider}: {snippet!r}") from None


async def sse_json_source(
    model: ResolvedModel,
    url: str,
    headers: dict[str, str],
    body: dict[str, Any],
    options: StreamOptions,
    config: HttpConfig,
    whole: WholeBody | None = None,
    messages: Sequence[Any] = (),
) -> AsyncGenerator[tuple[str, Any], None]:
    """POST ``body`` and yield ``(event name, parsed JSON or "[DONE]")``.

    ``model.auth`` (a subscription) adds its headers for ``messages`` on every attempt, so a
    token renewed mid-session is the one sent. Raises ProviderError (one line, free of
    secrets) or Aborted. Retrying is the caller's job
    (:func:`~agent_core.providers._transport.run_accumulated`), so errors inside the stream
    share the same policy.
    """
    check_headers(model, headers)
    client = config.client()

    async def source(put: Callable[[Any], None]) -> None:
        sent = headers
        if model.auth is not None:
            sent = {**headers, **await _auth_headers(model, messages)}
        watch = StallWatch(config.timeouts)
        watch.start()
        response: httpx.Response | None = None
        try:
            request = client.build_request("POST", url, headers=sent, content=encode_body(body))
            try:
                response = await client.send(request, stream=True)
            except httpx.TransportError as exc:
                raise describe_network_error(
                    model, exc, before_answer=True, why=config.explain(exc)
                ) from None
            ctype = response.headers.get("content-type", "")
            if response.status_code >= 300 or "event-stream" not in ctype.lower():
                watch.touch()  # headers of a body that is not a stream: it is read as a whole
                try:
                    await _not_a_stream(model, response, ctype, put, whole)
                except ProviderError as exc:
                    raise await _renewed_after_401(model, exc, sent) from None
                return
            await _put_events(model, response, watch, put)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if watch.expired is None or task is None:
                raise
            task.uncancel()  # our own timer cancelled the read: a stall, not an abort
            raise watch.error(model.provider) from None
        except httpx.TransportError as exc:
            raise describe_network_error(
                model, exc, before_answer=not watch.got_byte, why=config.explain(exc)
            ) from None
        except SseLineTooLong as exc:
            raise ProviderError(f"Malformed SSE stream from {model.provider}: {exc}") from None
        finally:
            watch.stop()
            if response is not None:
                await response.aclose()

    async for item in pump(source, options.cancel):
        yield item


async def _auth_headers(model: ResolvedModel, messages: Sequence[Any]) -> dict[str, str]:
    from agent_core.providers.request_auth import AuthFailure, auth_headers  # subscriptions only

    try:
        found = await auth_headers(model.auth, messages)
    except AuthFailure as exc:
        raise ProviderError(one_line(redact(str(exc), model.secrets)), status=401) from None
    check_headers(model, found)
    return found


async def _renewed_after_401(
    model: ResolvedModel, error: ProviderError, sent: dict[str, str]
) -> ProviderError:
    """A subscription's token refused (401): renewed, the request is tried once more."""
    if error.status != 401 or model.auth is None:
        return error
    from agent_core.providers.request_auth import AuthFailure

    try:
        renewed = await asyncio.to_thread(model.auth.rejected, sent)
    except AuthFailure as exc:
        return ProviderError(one_line(redact(str(exc), model.secrets)), status=401)
    if not renewed:
        return error
    message = f"{error.message} (the sign-in was renewed: trying again)"
    return ProviderError(message, retryable=True, retry_after=0, status=401)


async def _not_a_stream(
    model: ResolvedModel,
    response: httpx.Response,
    ctype: str,
    put: Callable[[Any], None],
    whole: WholeBody | None,
) -> None:
    """An error status, a redirect, or a 2xx body that is not an event stream."""
    status = response.status_code
    raw = await _read_capped(response)
    if status >= 400:
        raise http_error(
            model.provider,
            status,
            raw,
            api_key=model.secrets,
            key_env=model.api_key_env,
            retry_after=parse_retry_after(response.headers),
        )
    where = model.base_url or "the endpoint"
    if status >= 300:
        target = redact(response.headers.get("location", "?"), model.secrets)
        raise ProviderError(
            one_line(
                f"{model.provider} answered HTTP {status} (a redirect to {target}) instead of "
                f"a stream: check the base URL {where}",
                500,
            ),
            status=status,
        )
    text = raw.decode("utf-8", "replace")
    what = f"HTTP {status} {ctype.split(';')[0].strip() or 'without a content type'}"
    if text.lstrip().startswith(("data:", "event:", ":")):  # a stream with the wrong label
        async for sse in iter_sse(_lines(text)):
            raw_data = sse.data.strip()
            parsed = "[DONE]" if raw_data == "[DONE]" else _json_or_error(model, raw_data, what)
            put((sse.event, parsed))
        return
    data: Any
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        data = None
    if isinstance(data, dict) and (data.get("error") or data.get("type") == "error"):
        err = data.get("error")
        kind = (
            str(err.get("type") or err.get("code") or "error") if isinstance(err, dict) else "error"
        )
        raise stream_error(model.provider, kind, body_message(data), model.secrets)
    items = whole(data) if whole is not None and data is not None else None
    if items is None:
        snippet = one_line(redact(text, model.secrets), 120) or "(empty body)"
        raise ProviderError(
            one_line(
                f"{model.provider} answered {what} instead of an event stream: {snippet} "
                f"(check the base URL {where})",
                500,
            ),
            status=status,
        )
    for item in items:
        put(item)


def _json_or_error(model: ResolvedModel, data: str, what: str) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        snippet = one_line(redact(data, model.secrets), 80)
        raise ProviderError(
            f"Malformed SSE data from {model.provider} ({what}): {snippet!r}"
        ) from None


async def _lines(text: str) -> AsyncGenerator[str, None]:
    for line in text.splitlines():
        yield line


async def _read_capped(response: httpx.Response) -> bytes:
    parts: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        parts.append(chunk)
        size += len(chunk)
        if size > MAX_WHOLE_BODY:
            break
    return b"".join(parts)


def check_headers(model: ResolvedModel, headers: dict[str, str]) -> None:
    """Refuse, before sending, header values no HTTP request can carry (a key with a newline).

    Sent anyway, httpx fails with the value in its message: a leak, reported as a dropped
    connection. Here the message names what to fix and never the value.
    """
    for name, value in headers.items():
        bad = next((c for c in value if ord(c) < 32 or ord(c) == 127 or ord(c) > 255), None)
        if bad is None:
            continue
        what = "a line break or control character" if ord(bad) < 128 else "a non-ASCII character"
        auth = name.lower() in ("authorization", "x-api-key", "api-key")
        fix = (model.api_key_env or "the API key") if auth else f"header {name!r} in models.json"
        raise ProviderError(
            f"The {'API key' if auth else f'header {name!r}'} for {model.provider} contains "
            f"{what}, which no HTTP header can carry: check {fix}"
        )


def describe_network_error(
    model: ResolvedModel, exc: Exception, *, before_answer: bool = False, why: str | None = None
) -> ProviderError:
    """A one-line message for an httpx transport failure (retryable when worth another try).

    ``why``: a proxy or certificate failure already put in words (never retried).
    """
    where = model.base_url or model.provider
    if why is not None:
        return ProviderError(
            one_line(f"Could not reach {model.provider}: {redact(why, model.secrets)}", 500)
        )
    detail = one_line(redact(str(exc) or type(exc).__name__, model.secrets))
    if isinstance(exc, httpx.ConnectTimeout):
        return ProviderError(f"Timed out connecting to {model.provider} at {where}")
    if isinstance(exc, httpx.TimeoutException):
        return ProviderError(f"Request to {model.provider} timed out: {detail}", retryable=True)
    if isinstance(exc, httpx.ConnectError):
        return ProviderError(
            one_line(f"Could not connect to {model.provider} at {where}: {detail}")
        )
    if isinstance(exc, httpx.LocalProtocolError):
        return ProviderError(one_line(f"Could not send the request to {model.provider}: {detail}"))
    if before_answer:
        # A reset before any byte arrived is worth another try; refused connections are not.
        retryable = isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError)
        return ProviderError(
            one_line(f"{model.provider} closed the connection before answering: {detail}"),
            retryable=retryable,
        )
    return ProviderError(one_line(f"Connection to {model.provider} dropped mid-stream: {detail}"))
