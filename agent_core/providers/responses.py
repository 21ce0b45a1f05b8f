"""OpenAI Responses API streaming (OpenAI's reasoning and Codex models, Azure, compatible servers).

Stateless: every request carries the whole conversation (``store: false``, no
``previous_response_id``), reasoning items travel back encrypted
(``include: ["reasoning.encrypted_content"]``) and their summaries are shown as thinking. The
HTTP side (SSE framing, retries, stall watch, abort) is the other transports' own.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from agent_core.providers._responses_accumulator import ResponsesAccumulator
from agent_core.providers._responses_convert import responses_input, responses_tools
from agent_core.providers._tool_ids import OutgoingIds
from agent_core.providers._transport import TransportConfig, run_accumulated, sse_json_source
from agent_core.providers.models import ResolvedModel
from agent_core.stream import LlmContext, StreamOptions

__all__ = ["ResponsesAccumulator", "build_request", "responses_items", "stream_responses"]

CODEX_PROVIDER = "openai-codex"
"""ChatGPT's Codex backend (a ChatGPT subscription): the Responses API with its own limits."""

_EFFORT = {"minimal": "minimal", "low": "low", "medium": "medium", "high": "high", "xhigh": "high"}


def build_request(
    model: ResolvedModel, context: LlmContext, options: StreamOptions
) -> dict[str, Any]:
    """The Responses request body (streaming, stateless)."""
    body: dict[str, Any] = {
        "model": model.name,
        "input": responses_input(context, OutgoingIds("openai")),
        "stream": True,
        "store": False,
    }
    if context.system_prompt:
        body["instructions"] = context.system_prompt
    if context.tools:
        body["tools"] = responses_tools(context.tools)
        body["tool_choice"] = "auto"
        body["parallel_tool_calls"] = True
    codex = model.provider == CODEX_PROVIDER
    if options.max_tokens and not codex:  # ChatGPT's Codex backend refuses max_output_tokens
        body["max_output_tokens"] = options.max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    if codex:  # as the Codex CLI asks: reasoning always comes back encrypted
        body["include"] = ["reasoning.encrypted_content"]
        body["text"] = {"verbosity": "medium"}
    if model.supports_reasoning:
        # Encrypted reasoning comes back so the next (stateless) request can carry it.
        body["include"] = ["reasoning.encrypted_content"]
        effort = _EFFORT.get(options.thinking or "off")
        if effort is not None:
            body["reasoning"] = {"effort": effort, "summary": "auto"}
    return body


async def stream_responses(
    model: ResolvedModel, context: LlmContext, options: StreamOptions, config: TransportConfig
) -> AsyncIterator[Any]:
    """StreamFn body for the Responses wire protocol."""

    def items() -> AsyncGenerator[tuple[str, Any], None]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
            **model.headers,
        }
        if model.api_key:
            headers["Authorization"] = f"Bearer {model.api_key}"
        body = build_request(model, context, options)
        url = f"{model.base_url}/responses"
        return sse_json_source(
            model, url, headers, body, options, config, responses_items, context.messages
        )

    async for item in run_accumulated(
        model, lambda: ResponsesAccumulator(model), items, config.retry, options
    ):
        yield item


def responses_items(data: Any) -> list[tuple[str, Any]] | None:
    """A complete (non-streamed) ``response`` object as the events its stream would carry."""
    if not isinstance(data, dict) or data.get("object") != "response":
        return None
    events: list[tuple[str, Any]] = []
    for index, item in enumerate(data.get("output") or []):
        if not isinstance(item, dict):
            continue
        events.append(
            ("", {"type": "response.output_item.added", "output_index": index, "item": item})
        )
        events.append(
            ("", {"type": "response.output_item.done", "output_index": index, "item": item})
        )
    status = data.get("status")
    terminal = {"incomplete": "response.incomplete", "failed": "response.failed"}.get(
        str(status), "response.completed"
    )
    events.append(("", {"type": terminal, "response": data}))
    return events
