"""OpenAI Chat Completions streaming (OpenAI, OpenRouter, Groq, DeepSeek, xAI, Ollama, vLLM, ...).

The chunk accumulator (:mod:`.chat_accumulator`) is also used by the litellm path, whose
chunks have the same shape.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from agent_core.providers._chat_accumulator import ChatCompletionsAccumulator
from agent_core.providers._convert import openai_messages, openai_tools
from agent_core.providers._request_forms import OpenAIForms, dumps
from agent_core.providers._tool_ids import OutgoingIds, id_style
from agent_core.providers._transport import TransportConfig, run_accumulated, sse_json_source
from agent_core.providers._wire.whole_body import chat_completion_items
from agent_core.providers.models import ResolvedModel
from agent_core.stream import LlmContext, StreamOptions, ToolSpec

__all__ = ["ChatCompletionsAccumulator", "build_request", "stream_openai"]


def build_request(
    model: ResolvedModel,
    context: LlmContext,
    options: StreamOptions,
    forms: OpenAIForms | None = None,
) -> dict[str, Any]:
    """The Chat Completions request body (streaming, with usage).

    With ``forms`` (a conversation's cache) ``messages`` and ``tools`` are encoded JSON text
    (:class:`~._request_forms.Raw`): write the body with :func:`~._request_forms.encode_body`.
    """
    messages: Any
    if forms is None:
        messages = openai_messages(context, OutgoingIds(id_style(model)))
    else:
        messages = forms.messages(context.system_prompt, context.messages)
    body: dict[str, Any] = {
        "model": model.name,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if context.tools:
        body["tools"] = (
            openai_tools(context.tools) if forms is None else forms.tools.text(context.tools)
        )
    if options.max_tokens:
        # OpenAI itself wants max_completion_tokens; compatible servers mostly know max_tokens.
        body["max_completion_tokens" if model.provider == "openai" else "max_tokens"] = (
            options.max_tokens
        )
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if options.thinking not in ("off", "", None) and model.supports_reasoning:
        effort = {"minimal": "minimal", "xhigh": "high"}.get(options.thinking, options.thinking)
        if model.provider == "openrouter":
            body["reasoning"] = {"effort": effort}
        else:
            body["reasoning_effort"] = effort
    return body


async def stream_openai(
    model: ResolvedModel, context: LlmContext, options: StreamOptions, config: TransportConfig
) -> AsyncIterator[Any]:
    """StreamFn body for the OpenAI Chat Completions wire protocol."""
    style = id_style(model)

    def items() -> AsyncGenerator[tuple[str, Any], None]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
            **model.headers,
        }
        if model.api_key:
            headers["Authorization"] = f"Bearer {model.api_key}"
        forms = config.forms(f"openai-{style}", lambda: OpenAIForms(style, _encoded_tools))
        body = build_request(model, context, options, forms)
        url = f"{model.base_url}/chat/completions"
        return sse_json_source(
            model, url, headers, body, options, config, chat_completion_items, context.messages
        )

    async for item in run_accumulated(
        model, lambda: ChatCompletionsAccumulator(model), items, config.retry, options
    ):
        yield item


def _encoded_tools(tools: list[ToolSpec]) -> str:
    return dumps(openai_tools(tools))
