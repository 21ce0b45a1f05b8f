"""OpenAI Chat Completions streaming (OpenAI, OpenRouter, Groq, DeepSeek, xAI, Ollama, vLLM, ...).

The chunk accumulator is also used by the litellm path, whose chunks have the same shape.
"""

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
from agent_core.providers.convert import openai_messages, openai_tools
from agent_core.providers.errors import ProviderError, body_message, stream_error
from agent_core.providers.models import ResolvedModel
from agent_core.providers.transport import (
    TransportConfig,
    finalize_usage,
    run_accumulated,
    sse_json_source,
)
from agent_core.stream import AssistantMessageBuilder, LlmContext, StreamOptions

_FINISH = {
    "stop": "stop",
    "end_turn": "stop",
    "length": "length",
    "max_tokens": "length",
    "tool_calls": "toolUse",
    "function_call": "toolUse",
    "tool_use": "toolUse",
}


class ChatCompletionsAccumulator:
    """Folds Chat Completions chunks (dicts) into stream events and the final message."""

    def __init__(self, model: ResolvedModel, api: str = "openai-completions") -> None:
        self.model = model
        self.builder = AssistantMessageBuilder(api=api, provider=model.provider, model=model.name)
        self.usage = Usage()
        self._current: tuple[str, int] | None = (
            None  # open text/thinking block (kind, content index)
        )
        self._tools: dict[int, int] = {}  # wire tool index -> content index
        self._open_tools: list[int] = []  # content indices of tool calls not yet ended
        self._signatures: dict[int, str] = {}
        self._redacted: set[int] = set()
        self.finish_reason: str | None = None
        self.done = False

    def _emit(self, out: list[Any], event: Any) -> None:
        self.builder.apply(event)
        out.append(event)

    def _close_tools(self, out: list[Any]) -> None:
        # Providers stream calls one after another, so a new block means the previous call is done.
        for index in self._open_tools:
            out.append(self.builder.finish_tool_call(index))
        self._open_tools.clear()

    def _close_current(self, out: list[Any]) -> None:
        self._close_tools(out)
        if self._current is None:
            return
        kind, index = self._current
        self._current = None
        block = self.builder.message.content[index]
        if kind == "text" and isinstance(block, TextContent):
            self._emit(out, TextEnd(content_index=index, content=block.text))
        elif isinstance(block, ThinkingContent):
            self._emit(
                out,
                ThinkingEnd(
                    content_index=index,
                    content=block.thinking,
                    signature=self._signatures.get(index),
                ),
            )
            if index in self._redacted:
                self.builder.message.content[index].redacted = True  # type: ignore[union-attr]

    def _open(self, out: list[Any], kind: str) -> int:
        if self._current is not None and self._current[0] == kind:
            return self._current[1]
        self._close_current(out)
        index = len(self.builder.message.content)
        self._emit(
            out,
            TextStart(content_index=index)
            if kind == "text"
            else ThinkingStart(content_index=index),
        )
        self._current = (kind, index)
        return index

    def feed(self, event: str, data: Any) -> list[Any]:
        """One parsed SSE data item (a chunk dict, or ``"[DONE]"``)."""
        out: list[Any] = []
        if data == "[DONE]":
            self.done = True
            return out
        if not isinstance(data, dict):
            return out
        if data.get("error"):
            # Same path as Anthropic's event: error (redaction, one line, overflow, retryable).
            err = data["error"]
            kind = str(
                (err.get("type") or err.get("code") or "error")
                if isinstance(err, dict)
                else "error"
            )
            raise stream_error(
                self.model.provider, kind, body_message({"error": err}), self.model.api_key
            )
        if data.get("usage"):
            self._read_usage(data["usage"])
        for choice in data.get("choices") or []:
            delta = choice.get("delta") or {}
            for block in delta.get("thinking_blocks") or []:  # litellm (Anthropic) signatures
                self._thinking_block(out, block)
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                index = self._open(out, "thinking")
                self._emit(out, ThinkingDelta(content_index=index, delta=reasoning))
            content = delta.get("content")
            if isinstance(content, str) and content:
                index = self._open(out, "text")
                self._emit(out, TextDelta(content_index=index, delta=content))
            for call in delta.get("tool_calls") or []:
                self._tool_delta(out, call)
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
        return out

    def _thinking_block(self, out: list[Any], block: dict[str, Any]) -> None:
        if block.get("type") == "redacted_thinking":
            index = self._open(out, "thinking")
            self._signatures[index] = block.get("data", "")
            self._redacted.add(index)
            self._close_current(out)
        elif block.get("signature"):
            index = self._open(out, "thinking")
            self._signatures[index] = block["signature"]

    def _tool_delta(self, out: list[Any], call: dict[str, Any]) -> None:
        wire = int(call.get("index") or 0)
        function = call.get("function") or {}
        index = self._tools.get(wire)
        known_id = index is not None and getattr(self.builder.message.content[index], "id", None)
        if index is None or (call.get("id") and call["id"] != known_id):
            self._close_current(out)
            index = len(self.builder.message.content)
            self._tools[wire] = index
            call_id = call.get("id") or f"call_{index}"
            self._emit(
                out, ToolCallStart(content_index=index, id=call_id, name=function.get("name") or "")
            )
            self._open_tools.append(index)
        args = function.get("arguments")
        if isinstance(args, str) and args:
            self._emit(out, ToolCallDelta(content_index=index, delta=args))

    def _read_usage(self, raw: dict[str, Any]) -> None:
        details = raw.get("prompt_tokens_details") or {}
        cached = int(details.get("cached_tokens") or raw.get("cache_read_input_tokens") or 0)
        written = int(raw.get("cache_creation_input_tokens") or 0)
        prompt = int(raw.get("prompt_tokens") or 0)
        self.usage = Usage(
            input=max(prompt - cached - written, 0),
            output=int(raw.get("completion_tokens") or 0),
            cache_read=cached,
            cache_write=written,
        )

    def finish(self) -> tuple[list[Any], AssistantMessage]:
        """Close open blocks and build the final message (error if the stream was cut short)."""
        out: list[Any] = []
        self._close_current(out)
        if self.finish_reason is None and not self.done:
            raise ProviderError(
                f"Connection to {self.model.provider} closed before the response completed"
            )
        usage = finalize_usage(self.model, self.usage)
        reason = _FINISH.get(self.finish_reason or "stop")
        if reason is None:
            return out, self.builder.finish(
                "error",
                usage=usage,
                error_message=f"{self.model.provider} stopped the response: {self.finish_reason}",
            )
        if self.builder.message.tool_calls and reason == "stop":
            reason = "toolUse"  # trust the content, not the declaration
        return out, self.builder.finish(reason, usage=usage)  # type: ignore[arg-type]


def build_request(
    model: ResolvedModel, context: LlmContext, options: StreamOptions
) -> dict[str, Any]:
    """The Chat Completions request body (streaming, with usage)."""
    body: dict[str, Any] = {
        "model": model.name,
        "messages": openai_messages(context),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if context.tools:
        body["tools"] = openai_tools(context.tools)
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

    def items() -> AsyncGenerator[tuple[str, Any], None]:
        headers = {
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
            **model.headers,
        }
        if model.api_key:
            headers["Authorization"] = f"Bearer {model.api_key}"
        body = build_request(model, context, options)
        return sse_json_source(
            model, f"{model.base_url}/chat/completions", headers, body, options, config
        )

    async for item in run_accumulated(
        model, lambda: ChatCompletionsAccumulator(model), items, config.retry, options
    ):
        yield item
