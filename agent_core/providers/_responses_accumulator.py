"""OpenAI Responses API stream events -> our stream events and the final message.

Blocks are keyed by ``output_index`` (every event carries it; ``item_id`` is the fallback for
servers that omit it). A reasoning item becomes a thinking block whose text is its summary (or
its raw reasoning text, on servers that send that) and whose signature is the item itself, to be
sent back next turn (:mod:`._responses_convert`). A block opens on its first visible piece, so
an item that says nothing (a message holding only a refusal) adds no empty block; a reasoning
item without a summary still ends as a (blank) thinking block: its encrypted content must go back.
"""

from __future__ import annotations

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
from agent_core.providers._responses_convert import reasoning_signature
from agent_core.providers._tool_ids import IncomingIds
from agent_core.providers._transport import finalize_usage
from agent_core.providers.errors import ProviderError, one_line, redact, stream_error
from agent_core.providers.models import ResolvedModel
from agent_core.stream import AssistantMessageBuilder

API = "openai-responses"
_TERMINAL = ("response.completed", "response.incomplete", "response.failed", "response.done")
_INCOMPLETE = {"max_output_tokens": "length", "content_filter": "refusal"}


class _Block:
    """One output item being read: its kind, content index (once opened) and pieces."""

    __slots__ = ("args_seen", "index", "kind", "summary_index")

    def __init__(self, kind: str) -> None:
        self.kind = kind  # "reasoning" | "message" | "function_call" | other (ignored)
        self.index: int | None = None
        self.summary_index: int | None = None
        self.args_seen = False


class ResponsesAccumulator:
    """Folds Responses SSE events (dicts) into stream events and the final message."""

    def __init__(self, model: ResolvedModel) -> None:
        self.model = model
        self.builder = AssistantMessageBuilder(api=API, provider=model.provider, model=model.name)
        self.usage = Usage()
        self._blocks: dict[Any, _Block] = {}
        self._item_keys: dict[str, Any] = {}
        self._ids = IncomingIds("call_")
        self._refusal: list[str] = []
        self._response_id: Any = None
        self.status: str | None = None
        self.incomplete_reason: str | None = None
        self.done = False

    def _emit(self, out: list[Any], event: Any) -> None:
        self.builder.apply(event)
        out.append(event)

    # ------------------------------------------------------------------ events

    def feed(self, event: str, data: Any) -> list[Any]:
        """One parsed SSE data item."""
        out: list[Any] = []
        if not isinstance(data, dict):
            return out
        kind = str(data.get("type") or event)
        if kind == "response.created":
            self._started(data.get("response"))
        elif kind == "response.output_item.added":
            self._added(out, data)
        elif kind in ("response.output_text.delta", "response.refusal.delta"):
            self._text(out, data, refusal=kind == "response.refusal.delta")
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            self._reasoning(out, data, summary=kind.startswith("response.reasoning_summary"))
        elif kind == "response.function_call_arguments.delta":
            self._arguments(out, data)
        elif kind == "response.output_item.done":
            self._item_done(out, data)
        elif kind in _TERMINAL:
            self._terminal(out, kind, data.get("response"))
        elif kind == "error":
            error = data.get("error")
            self._error(error if isinstance(error, dict) else data)
        return out

    def _started(self, response: Any) -> None:
        started = response.get("id") if isinstance(response, dict) else None
        if self._response_id is not None and started and started != self._response_id:
            raise ProviderError(
                f"{self.model.provider} began a second response inside the stream before "
                "the first one ended",
                retryable=True,
            )
        self._response_id = started or self._response_id

    def _key(self, data: dict[str, Any]) -> Any:
        if "output_index" in data:
            return data["output_index"]
        item = data.get("item")
        item_id = data.get("item_id") or (item.get("id") if isinstance(item, dict) else None)
        return self._item_keys.get(str(item_id), item_id)

    def _block(self, data: dict[str, Any], kind: str) -> _Block:
        key = self._key(data)
        block = self._blocks.get(key)
        if block is None:  # a delta before (or without) its output_item.added
            block = self._blocks[key] = _Block(kind)
        return block

    def _added(self, out: list[Any], data: dict[str, Any]) -> None:
        item = data.get("item")
        if not isinstance(item, dict):
            return
        key = self._key(data)
        if isinstance(item.get("id"), str):
            self._item_keys[item["id"]] = key
        block = self._blocks[key] = _Block(str(item.get("type") or ""))
        if block.kind == "function_call":
            self._open_call(out, block, item)

    def _open_call(self, out: list[Any], block: _Block, item: dict[str, Any]) -> None:
        index = len(self.builder.message.content)
        call_id, original = self._ids.take(item.get("call_id") or item.get("id"))
        self._emit(
            out,
            ToolCallStart(
                content_index=index,
                id=call_id,
                name=str(item.get("name") or ""),
                original_id=original,
            ),
        )
        block.index = index

    def _open(self, out: list[Any], block: _Block, thinking: bool) -> int:
        if block.index is None:
            block.index = len(self.builder.message.content)
            start = ThinkingStart if thinking else TextStart
            self._emit(out, start(content_index=block.index))
        return block.index

    def _text(self, out: list[Any], data: dict[str, Any], *, refusal: bool) -> None:
        delta = data.get("delta")
        if not isinstance(delta, str) or not delta:
            return
        if refusal:
            self._refusal.append(delta)
            return
        block = self._block(data, "message")
        if block.kind != "message":
            return
        self._emit(out, TextDelta(content_index=self._open(out, block, False), delta=delta))

    def _reasoning(self, out: list[Any], data: dict[str, Any], *, summary: bool) -> None:
        delta = data.get("delta")
        if not isinstance(delta, str) or not delta:
            return
        block = self._block(data, "reasoning")
        if block.kind != "reasoning":
            return
        fresh = block.index is None
        index = self._open(out, block, True)
        part = data.get("summary_index") if summary else data.get("content_index")
        if not fresh and part is not None and part != block.summary_index:
            self._emit(out, ThinkingDelta(content_index=index, delta="\n\n"))
        block.summary_index = part if part is not None else block.summary_index
        self._emit(out, ThinkingDelta(content_index=index, delta=delta))

    def _arguments(self, out: list[Any], data: dict[str, Any]) -> None:
        delta = data.get("delta")
        block = self._blocks.get(self._key(data))
        if block is None or block.kind != "function_call" or block.index is None:
            return
        if isinstance(delta, str) and delta:
            block.args_seen = True
            self._emit(out, ToolCallDelta(content_index=block.index, delta=delta))

    def _item_done(self, out: list[Any], data: dict[str, Any]) -> None:
        item = data.get("item")
        if not isinstance(item, dict):
            return
        key = self._key(data)
        block = self._blocks.pop(key, None) or _Block(str(item.get("type") or ""))
        if block.kind == "reasoning":
            self._reasoning_done(out, block, item)
        elif block.kind == "message":
            self._message_done(out, block, item)
        elif block.kind == "function_call":
            if block.index is None:
                self._open_call(out, block, item)
            arguments = item.get("arguments")
            if not block.args_seen and isinstance(arguments, str) and arguments:
                self._emit(out, ToolCallDelta(content_index=block.index or 0, delta=arguments))
            self._emit_end(out, block)

    def _emit_end(self, out: list[Any], block: _Block) -> None:
        if block.index is not None:
            out.append(self.builder.finish_tool_call(block.index))

    def _reasoning_done(self, out: list[Any], block: _Block, item: dict[str, Any]) -> None:
        if block.index is None:  # nothing streamed: take the summary the item carries
            texts = [p.get("text", "") for p in item.get("summary") or [] if isinstance(p, dict)]
            index = self._open(out, block, True)
            text = "\n\n".join(t for t in texts if t)
            if text:
                self._emit(out, ThinkingDelta(content_index=index, delta=text))
        index = block.index or 0
        current = self.builder.message.content[index]
        thought = current.thinking if isinstance(current, ThinkingContent) else ""
        end = ThinkingEnd(content_index=index, content=thought, signature=reasoning_signature(item))
        self._emit(out, end)

    def _message_done(self, out: list[Any], block: _Block, item: dict[str, Any]) -> None:
        parts = [p for p in item.get("content") or [] if isinstance(p, dict)]
        if block.index is None:
            text = "".join(
                str(p.get("text") or "") for p in parts if p.get("type") == "output_text"
            )
            if text:
                self._emit(out, TextDelta(content_index=self._open(out, block, False), delta=text))
            if not self._refusal:
                self._refusal.extend(
                    str(p.get("refusal") or "") for p in parts if p.get("type") == "refusal"
                )
        if block.index is not None:
            current = self.builder.message.content[block.index]
            text = current.text if isinstance(current, TextContent) else ""
            self._emit(out, TextEnd(content_index=block.index, content=text))

    def _terminal(self, out: list[Any], kind: str, response: Any) -> None:
        response = response if isinstance(response, dict) else {}
        self._read_usage(response.get("usage"))
        self.status = str(response.get("status") or kind.removeprefix("response."))
        details = response.get("incomplete_details")
        if isinstance(details, dict) and details.get("reason"):
            self.incomplete_reason = str(details["reason"])
        if self.status == "failed" or kind == "response.failed":
            error = response.get("error")
            self._error(error if isinstance(error, dict) else {"message": "the response failed"})
        # Items the stream never closed (a server that only sends the terminal event).
        for key in list(self._blocks):
            block = self._blocks.pop(key)
            if block.kind == "function_call" and block.index is not None:
                self._emit_end(out, block)
        self.done = True

    def _error(self, error: dict[str, Any]) -> None:
        code = str(error.get("code") or error.get("type") or "error")
        raise stream_error(
            self.model.provider, code, str(error.get("message") or error), self.model.secrets
        )

    def _read_usage(self, raw: Any) -> None:
        if not isinstance(raw, dict):
            return
        details = raw.get("input_tokens_details") or {}
        cached = int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0
        total_in = int(raw.get("input_tokens") or 0)
        self.usage = Usage(
            input=max(total_in - cached, 0),
            output=int(raw.get("output_tokens") or 0),
            cache_read=cached,
        )

    # ------------------------------------------------------------------ end

    def finish(self) -> tuple[list[Any], AssistantMessage]:
        """Close what is open and build the final message (error if the stream was cut)."""
        out: list[Any] = []
        if not self.done:
            raise ProviderError(
                f"Connection to {self.model.provider} closed before the response completed"
            )
        usage = finalize_usage(self.model, self.usage)
        reason = "stop"
        if self.status == "incomplete":
            reason = _INCOMPLETE.get(self.incomplete_reason or "", "")
            if not reason:
                detail = redact(
                    one_line(self.incomplete_reason or "unknown", 100), self.model.secrets
                )
                return out, self.builder.finish(
                    "error",
                    usage=usage,
                    error_message=f"{self.model.provider} left the response incomplete: {detail}",
                )
        if self._refusal and reason == "stop":
            reason = "refusal"
        if reason == "refusal":
            refusal = "".join(self._refusal) or "the provider's content filter"
            return out, self.builder.finish("refusal", usage=usage, refusal=refusal)
        if self.builder.message.tool_calls and reason == "stop":
            reason = "toolUse"
        return out, self.builder.finish(reason, usage=usage)  # type: ignore[arg-type]
