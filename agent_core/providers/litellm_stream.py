"""The litellm path: every provider we do not speak natively (Gemini, Vertex, Bedrock, Azure, ...).

litellm is imported lazily, inside the call, and only here (import costs ~5 s / 200 MiB).
Its chunks have the Chat Completions shape, so the native accumulator folds them; the same
retry policy, abort pump and final-message rules apply as on the native paths.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import importlib
import os
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any

from agent_core.providers._chat_accumulator import ChatCompletionsAccumulator
from agent_core.providers._convert import openai_messages, openai_tools
from agent_core.providers._tool_ids import OutgoingIds, id_style
from agent_core.providers._transport import TransportConfig, run_accumulated
from agent_core.providers._wire.sse import pump
from agent_core.providers._wire.stall import StallWatch
from agent_core.providers.errors import (
    CONTEXT_OVERFLOW_PREFIX,
    ProviderError,
    body_message,
    http_error,
    is_overflow_text,
    one_line,
    redact,
)
from agent_core.providers.models import DEFAULT_MAX_TOKENS_CAP, ResolvedModel
from agent_core.providers.retry import parse_retry_after
from agent_core.stream import LlmContext, StreamOptions

_litellm: Any = None


async def _import_litellm() -> Any:
    """Import litellm once, off the event loop, with the offline cost map."""
    global _litellm
    if _litellm is None:
        # Without this litellm fetches its cost map from the internet at import.
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        module: Any = await asyncio.to_thread(importlib.import_module, "litellm")
        module.suppress_debug_info = True
        module.telemetry = False
        _litellm = module
    return _litellm


def _is_anthropic(model: ResolvedModel) -> bool:
    return model.litellm_model.startswith("anthropic/")


def litellm_messages(context: LlmContext, model: ResolvedModel) -> list[dict[str, Any]]:
    """OpenAI-shaped messages; for Anthropic targets with cache breakpoints like the native path."""
    messages = openai_messages(context, OutgoingIds(id_style(model)))
    if not _is_anthropic(model):
        return messages
    ephemeral = {"type": "ephemeral"}
    if messages and messages[0]["role"] == "system":
        messages[0]["content"] = [
            {"type": "text", "text": messages[0]["content"], "cache_control": ephemeral}
        ]
    for entry in reversed(messages):
        if entry["role"] == "user":
            content = entry["content"]
            if isinstance(content, str):
                entry["content"] = content = [{"type": "text", "text": content}]
            if content:
                content[-1]["cache_control"] = ephemeral
            break
    return messages


def _request(
    model: ResolvedModel, context: LlmContext, options: StreamOptions, config: TransportConfig
) -> dict[str, Any]:
    kwargs: dict[str, Any] = {
        "model": model.litellm_model or model.id,
        "messages": litellm_messages(context, model),
        "stream": True,
        "stream_options": {"include_usage": True},
        # A backstop only: the stall watch bounds the first chunk and the silence between chunks.
        "timeout": max(config.timeouts.first_byte_s or 86400.0, config.timeouts.idle_s or 0.0),
        "max_retries": 0,  # retries are ours (same policy and notices on every path)
        "num_retries": 0,
    }
    if model.base_url:
        kwargs["api_base"] = model.base_url
    if model.api_key or model.base_url:
        kwargs["api_key"] = model.api_key or "no-key"  # local servers ignore it; the SDK wants one
    if model.headers:
        kwargs["extra_headers"] = dict(model.headers)
    if context.tools:
        kwargs["tools"] = openai_tools(context.tools)
    if options.max_tokens or _is_anthropic(model):
        kwargs["max_tokens"] = options.max_tokens or min(
            model.max_output_tokens, DEFAULT_MAX_TOKENS_CAP
        )
    if options.temperature is not None:
        kwargs["temperature"] = options.temperature
    if options.thinking not in ("off", "", None) and model.supports_reasoning:
        kwargs["reasoning_effort"] = {"xhigh": "high"}.get(options.thinking, options.thinking)
    return kwargs


def _detail(exc: BaseException) -> str:
    raw = str(getattr(exc, "message", "") or exc)
    # litellm prefixes "litellm.XError: ProviderException - <body>"; the body may be a bytes repr.
    detail = raw.split(" - ", 1)[-1] if " - " in raw else raw
    if detail.startswith(("b'", 'b"')):
        with contextlib.suppress(ValueError, SyntaxError, UnicodeDecodeError):
            detail = ast.literal_eval(detail).decode("utf-8", "replace")
    return body_message(detail)


def litellm_error(
    model: ResolvedModel,
    exc: BaseException,
    litellm: Any,
    *,
    timeout_s: float,
    midstream: bool = False,
) -> ProviderError:
    """Map a litellm exception to our one-line, key-free ProviderError."""
    if isinstance(exc, ProviderError):
        return exc
    detail = _detail(exc)
    if isinstance(exc, litellm.Timeout):
        return ProviderError(
            f"Request to {model.provider} timed out: no data for {timeout_s:g}s", retryable=True
        )
    if midstream:
        text = one_line(redact(detail, model.secrets))
        if isinstance(exc, litellm.ContextWindowExceededError) or is_overflow_text(text):
            return ProviderError(
                one_line(f"{CONTEXT_OVERFLOW_PREFIX} {text} ({model.provider})", 500)
            )
        # Retried only while nothing was yielded yet (run_accumulated), like the native paths.
        return ProviderError(
            one_line(f"Stream from {model.provider} failed mid-response: {text}", 500),
            retryable="overloaded" in text.lower(),
        )
    if isinstance(exc, litellm.APIConnectionError):
        text = one_line(redact(detail, model.secrets))
        return ProviderError(one_line(f"Connection to {model.provider} failed: {text}", 500))
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and status >= 400:
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None) or getattr(
            exc, "litellm_response_headers", None
        )
        return http_error(
            model.provider,
            status,
            detail,
            api_key=model.secrets,
            key_env=model.api_key_env,
            retry_after=parse_retry_after(dict(headers) if headers else None),
        )
    text = one_line(redact(f"{type(exc).__name__}: {detail}", model.secrets))
    return ProviderError(one_line(f"litellm request to {model.provider} failed: {text}", 500))


async def _source(
    model: ResolvedModel, context: LlmContext, options: StreamOptions, config: TransportConfig
) -> AsyncGenerator[tuple[str, Any], None]:
    litellm = await _import_litellm()
    kwargs = _request(model, context, options, config)
    timeout_s = float(kwargs["timeout"])

    async def open_stream() -> Any:
        try:
            return await litellm.acompletion(**kwargs)
        except Exception as exc:  # noqa: BLE001 - every litellm failure becomes one line
            raise litellm_error(model, exc, litellm, timeout_s=timeout_s) from None

    async def source(put: Callable[[Any], None]) -> None:
        watch = StallWatch(config.timeouts)  # per chunk here: litellm hides the bytes
        watch.start()
        stream: Any = None
        try:
            stream = await open_stream()  # retried by run_accumulated, like the native paths
            # litellm answered: the response has begun (it may have read events, such as
            # Anthropic's message_start, that yield no chunk). From here the idle limit counts.
            watch.touch()
            async for chunk in stream:
                watch.touch()
                put(("chunk", chunk.model_dump(exclude_none=True)))
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if watch.expired is None or task is None:
                raise
            task.uncancel()
            raise watch.error(model.provider) from None
        except ProviderError:
            raise
        except Exception as exc:  # noqa: BLE001
            raise litellm_error(model, exc, litellm, timeout_s=timeout_s, midstream=True) from None
        finally:
            watch.stop()
            closer = getattr(getattr(stream, "completion_stream", None), "aclose", None)
            if closer is not None:
                with contextlib.suppress(Exception):
                    await closer()

    async for item in pump(source, options.cancel):
        yield item


async def stream_litellm(
    model: ResolvedModel, context: LlmContext, options: StreamOptions, config: TransportConfig
) -> AsyncIterator[Any]:
    """StreamFn body routed through ``litellm.acompletion(stream=True)``."""
    async for item in run_accumulated(
        model,
        lambda: ChatCompletionsAccumulator(model, api="litellm"),
        lambda: _source(model, context, options, config),
        config.retry,
        options,
    ):
        yield item
