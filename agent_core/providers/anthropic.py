"""Anthropic Messages API streaming: text, thinking (signed / redacted), tool_use, prompt caching."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from agent_core.events import (
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallDelta,
    ToolCallStart,
)
from agent_core.messages import AssistantMessage, TextContent, ThinkingContent, Usage
from agent_core.providers._convert import anthropic_messages, anthropic_tools
from agent_core.providers._request_forms import AnthropicForms, dumps
from agent_core.providers._tool_ids import IncomingIds
from agent_core.providers._transport import (
    TransportConfig,
    finalize_usage,
    run_accumulated,
    sse_json_source,
)
from agent_core.providers._wire.whole_body import anthropic_message_items
from agent_core.providers.errors import ProviderError, one_line, redact, stream_error
from agent_core.providers.models import DEFAULT_MAX_TOKENS_CAP, ResolvedModel
from agent_core.stream import AssistantMessageBuilder, LlmContext, StreamOptions, ToolSpec

API_VERSION = "2023-06-01"
REDACTED_TEXT = "[Redacted thinking]"
THINKING_MIN_BUDGET = 1024  # the API's minimum budget_tokens
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32000}
_STOP = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "tool_use": "toolUse",
    "model_context_window_exceeded": "length",
    "refusal": "refusal",
}


class MessagesAccumulator:
    """Folds Messages API SSE events into stream events and the final message."""

    def __init__(self, model: ResolvedModel) -> None:
        self.model = model
        self.builder = AssistantMessageBuilder(
            api="anthropic-messages", provider=model.provider, model=model.name
        )
        self.usage = Usage()
        self._blocks: dict[int, tuple[str, int]] = {}  # wire index -> (kind, content index)
        self._signatures: dict[int, str] = {}
        self._ids = IncomingIds("toolu_")
        self._message_id: Any = None
        self.stop_details: Any = None
        self.stop_reason: str | None = None
        self.done = False

    def _emit(self, out: list[Any], event: Any) -> None:
        self.builder.apply(event)
        out.append(event)

    def feed(self, event: str, data: Any) -> list[Any]:
        """One parsed SSE data item."""
        out: list[Any] = []
        if not isinstance(data, dict):
            return out
        kind = data.get("type", event)
        if kind == "message_start":
            message = data.get("message") or {}
            started = message.get("id")
            if self._message_id is not None and started != self._message_id:
                # Another response spliced into this one (a proxy retrying upstream): its
                # blocks would reuse the open ones' indices and corrupt both.
                raise ProviderError(
                    f"{self.model.provider} began a second response inside the stream before "
                    "the first one ended",
                    retryable=True,
                )
            self._message_id = started  # the same id again: a repeated event, harmless
            self._read_usage(message.get("usage") or {})
        elif kind == "content_block_start":
            self._start(out, int(data.get("index", 0)), data.get("content_block") or {})
        elif kind == "content_block_delta":
            self._delta(out, int(data.get("index", 0)), data.get("delta") or {})
        elif kind == "content_block_stop":
            self._stop(out, int(data.get("index", 0)))
        elif kind == "message_delta":
            delta = data.get("delta") or {}
            self.stop_reason = delta.get("stop_reason") or self.stop_reason
            self.stop_details = delta.get("stop_details") or self.stop_details
            self._read_usage(data.get("usage") or {})
        elif kind == "message_stop":
            self.done = True
        elif kind == "error":
            err = data.get("error") or {}
            raise stream_error(
                self.model.provider,
                str(err.get("type", "error")),
                str(err.get("message", err)),
                self.model.secrets,
            )
        return out

    def _start(self, out: list[Any], wire: int, block: dict[str, Any]) -> None:
        index = len(self.builder.message.content)
        btype = block.get("type")
        if btype == "text":
            self._blocks[wire] = ("text", index)
            self._emit(out, TextStart(content_index=index))
            if block.get("text"):
                self._emit(out, TextDelta(content_index=index, delta=block["text"]))
        elif btype in ("thinking", "redacted_thinking"):
            self._blocks[wire] = (btype, index)
            self._emit(out, ThinkingStart(content_index=index))
            if btype == "redacted_thinking":
                self._signatures[index] = block.get("data", "")
                self._emit(out, ThinkingDelta(content_index=index, delta=REDACTED_TEXT))
        elif btype == "tool_use":
            self._blocks[wire] = ("tool", index)
            call_id, original = self._ids.take(block.get("id"))
            self._emit(
                out,
                ToolCallStart(
                    content_index=index,
                    id=call_id,
                    name=str(block.get("name") or ""),
                    original_id=original,
                ),
            )

    def _delta(self, out: list[Any], wire: int, delta: dict[str, Any]) -> None:
        if wire not in self._blocks:
            return
        _, index = self._blocks[wire]
        dtype = delta.get("type")
        if dtype == "text_delta" and delta.get("text"):
            self._emit(out, TextDelta(content_index=index, delta=delta["text"]))
        elif dtype == "thinking_delta" and delta.get("thinking"):
            self._emit(out, ThinkingDelta(content_index=index, delta=delta["thinking"]))
        elif dtype == "signature_delta":
            self._signatures[index] = self._signatures.get(index, "") + delta.get("signature", "")
        elif dtype == "input_json_delta" and delta.get("partial_json"):
            self._emit(out, ToolCallDelta(content_index=index, delta=delta["partial_json"]))

    def _stop(self, out: list[Any], wire: int) -> None:
        entry = self._blocks.pop(wire, None)
        if entry is None:
            return
        kind, index = entry
        block = self.builder.message.content[index]
        if kind == "text" and isinstance(block, TextContent):
            self._emit(out, TextEnd(content_index=index, content=block.text))
        elif kind in ("thinking", "redacted_thinking") and isinstance(block, ThinkingContent):
            self._emit(
                out,
                ThinkingEnd(
                    content_index=index,
                    content=block.thinking,
                    signature=self._signatures.get(index) or None,
                ),
            )
            if kind == "redacted_thinking":
                self.builder.message.content[index].redacted = True  # type: ignore[union-attr]
        elif kind == "tool":
            out.append(self.builder.finish_tool_call(index))

    def _read_usage(self, raw: Any) -> None:
        if not isinstance(raw, dict):
            return
        usage = self.usage
        if raw.get("input_tokens") is not None:
            usage.input = int(raw["input_tokens"])
        if raw.get("output_tokens") is not None:
            usage.output = int(raw["output_tokens"])
        if raw.get("cache_read_input_tokens") is not None:
            usage.cache_read = int(raw["cache_read_input_tokens"])
        if raw.get("cache_creation_input_tokens") is not None:
            usage.cache_write = int(raw["cache_creation_input_tokens"])

    def finish(self) -> tuple[list[Any], AssistantMessage]:
        """Build the final message (error if the stream was cut short)."""
        if not self.done and self.stop_reason is None:
            raise ProviderError(
                f"Connection to {self.model.provider} closed before the response completed"
            )
        out: list[Any] = []
        for wire in list(self._blocks):
            self._stop(out, wire)
        usage = finalize_usage(self.model, self.usage)
        reason = _STOP.get(self.stop_reason or "end_turn")
        if reason is None:
            detail = redact(one_line(str(self.stop_reason), 100), self.model.secrets)
            return out, self.builder.finish(
                "error",
                usage=usage,
                error_message=f"{self.model.provider} stopped the response: {detail}",
            )
        if reason == "refusal":
            refusal = _refusal_reason(self.stop_details)
            return out, self.builder.finish("refusal", usage=usage, refusal=refusal)
        return out, self.builder.finish(reason, usage=usage)  # type: ignore[arg-type]


def _refusal_reason(details: Any) -> str | None:
    """Anthropic's ``stop_details`` of a refusal: its explanation, else its policy category."""
    if not isinstance(details, dict):
        return None
    explanation = details.get("explanation")
    if isinstance(explanation, str) and explanation.strip():
        return explanation.strip()
    category = details.get("category")
    return f"policy category: {category}" if isinstance(category, str) and category else None


def build_request(
    model: ResolvedModel,
    context: LlmContext,
    options: StreamOptions,
    forms: AnthropicForms | None = None,
) -> dict[str, Any]:
    """The Messages API request body (streaming, cache breakpoints, thinking budget).

    With ``forms`` (a conversation's cache) ``messages`` and ``tools`` are encoded JSON text
    (:class:`~._request_forms.Raw`): write the body with :func:`~._request_forms.encode_body`.
    """
    messages: Any
    if forms is None:
        system, messages = anthropic_messages(context)
    else:
        system, _ = anthropic_messages(LlmContext(context.system_prompt, []))
        messages = forms.messages(context.messages)
    max_tokens = options.max_tokens or min(model.max_output_tokens, DEFAULT_MAX_TOKENS_CAP)
    body: dict[str, Any] = {"model": model.name, "messages": messages, "stream": True}
    if system:
        body["system"] = system
    if context.tools:
        body["tools"] = (
            anthropic_tools(context.tools) if forms is None else forms.tools.text(context.tools)
        )
    budget = THINKING_BUDGETS.get(options.thinking or "off")
    if budget and model.supports_reasoning:
        if max_tokens <= budget:  # the budget must leave room for the answer
            max_tokens = min(budget + 4096, max(model.max_output_tokens, budget + 1024))
        # Anthropic rejects budgets under 1024 (HTTP 400) and wants room for the answer too.
        budget = max(THINKING_MIN_BUDGET, min(budget, max_tokens - THINKING_MIN_BUDGET))
        max_tokens = max(max_tokens, budget + THINKING_MIN_BUDGET)
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    elif options.temperature is not None:
        body["temperature"] = options.temperature  # not allowed together with thinking
    body["max_tokens"] = max_tokens
    return body


async def stream_anthropic(
    model: ResolvedModel, context: LlmContext, options: StreamOptions, config: TransportConfig
) -> AsyncIterator[Any]:
    """StreamFn body for the Anthropic Messages wire protocol."""

    def items() -> AsyncGenerator[tuple[str, Any], None]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
            "anthropic-version": API_VERSION,
            **model.headers,
        }
        if model.api_key:
            headers["x-api-key"] = model.api_key
        forms = config.forms("anthropic", lambda: AnthropicForms(_encoded_tools))
        body = build_request(model, context, options, forms)
        base = (model.base_url or "").removesuffix("/v1")
        url = f"{base}/v1/messages"
        return sse_json_source(
            model, url, headers, body, options, config, anthropic_message_items, context.messages
        )

    async for item in run_accumulated(
        model, lambda: MessagesAccumulator(model), items, config.retry, options
    ):
        yield item


def _encoded_tools(tools: list[ToolSpec]) -> str:
    return dumps(anthropic_tools(tools))
