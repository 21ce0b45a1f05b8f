"""Chat Completions chunks -> stream events and the final message (native and litellm paths)."""

from __future__ import annotations

import json
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
from agent_core.messages import AssistantMessage, TextContent, ThinkingContent, ToolCall, Usage
from agent_core.providers._chat_parts import FINISH, filtered, reasoning_details, texts
from agent_core.providers._think_tags import ThinkTagSplitter
from agent_core.providers._tool_ids import IncomingIds
from agent_core.providers._transport import finalize_usage
from agent_core.providers.errors import ProviderError, body_message, one_line, redact, stream_error
from agent_core.providers.models import ResolvedModel
from agent_core.stream import AssistantMessageBuilder, parse_tool_arguments


class ChatCompletionsAccumulator:
    """Folds Chat Completions chunks (dicts) into stream events and the final message.

    Beyond OpenAI's own shape it reads what compatible servers send: ``delta.content`` as a list
    of typed parts (Mistral/Magistral ``text`` and ``thinking``), reasoning as
    ``reasoning_content``, ``reasoning`` or ``reasoning_details``, ``<think>`` tags inside the
    content, ``delta.refusal``, tool calls without an id or with a repeated one, arguments sent
    as an object. Only one choice is read (a stream asked for ``n > 1`` interleaves several).
    """

    def __init__(self, model: ResolvedModel, api: str = "openai-completions") -> None:
        self.model = model
        self.builder = AssistantMessageBuilder(api=api, provider=model.provider, model=model.name)
        self.usage = Usage()
        self._current: tuple[str, int] | None = None  # open text/thinking block (kind, index)
        self._tools: dict[int, tuple[int, str | None]] = {}  # wire index -> (content index, id)
        self._open_tools: list[int] = []  # content indices of tool calls not yet ended
        self._ids = IncomingIds("call_")
        self._signatures: dict[int, str] = {}
        self._redacted: set[int] = set()
        self._refusal: list[str] = []
        self._tags: ThinkTagSplitter | None = ThinkTagSplitter()
        self._filter: str | None = None
        self._choice: Any = None  # the index of the one choice read (see feed)
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

    def _add(self, out: list[Any], kind: str, piece: str) -> None:
        index = self._open(out, kind)
        event = TextDelta if kind == "text" else ThinkingDelta
        self._emit(out, event(content_index=index, delta=piece))

    def _text(self, out: list[Any], text: str) -> None:
        tags = self._tags
        if tags is None:  # the hot path: one text delta
            index = self._open(out, "text")
            self._emit(out, TextDelta(content_index=index, delta=text))
            return
        for kind, piece in tags.feed(text):
            self._add(out, kind, piece)
        if tags.done:
            self._tags = None

    def feed(self, event: str, data: Any) -> list[Any]:
        """One parsed SSE data item (a chunk dict, or ``"[DONE]"``)."""
        out: list[Any] = []
        if data == "[DONE]":
            self.done = True
            return out
        if not isinstance(data, dict):
            return out
        if data.get("error"):
            if self.finish_reason is not None:
                # The answer had ended (OpenRouter adds "Token limit reached" after a "length").
                return out
            self._raise_error(data["error"])
        if data.get("usage"):
            self._read_usage(data["usage"])
        self._choices(out, data.get("choices") or ())
        return out

    def _choices(self, out: list[Any], choices: Any) -> None:
        for choice in choices:
            if not isinstance(choice, dict):
                continue
            if choice.get("index", 0) != self._choice:
                # Several choices (n > 1) interleave: ours is the first one saying anything
                # (choice 0 for OpenAI; some servers number from 1 or lead with an empty 0).
                if self._choice is not None or not _says_something(choice):
                    continue
                self._choice = choice.get("index", 0)
            delta = choice.get("delta")
            if delta:
                self._delta(out, delta)
            finish = choice.get("finish_reason")
            if finish:
                self.finish_reason = str(finish)
                if finish == "content_filter":
                    self._filter = filtered(choice.get("content_filter_results"))

    def _raise_error(self, err: Any) -> None:
        """A mid-stream error chunk: the same path as Anthropic's ``event: error`` (redaction,
        one line, overflow, retryable)."""
        kind = str(
            (err.get("type") or err.get("code") or "error") if isinstance(err, dict) else "error"
        )
        raise stream_error(
            self.model.provider, kind, body_message({"error": err}), self.model.secrets
        )

    def _delta(self, out: list[Any], delta: dict[str, Any]) -> None:
        if "thinking_blocks" in delta:  # litellm (Anthropic) signatures
            for block in delta["thinking_blocks"] or ():
                self._thinking_block(out, block)
        self._reasoning(out, delta)
        content = delta.get("content")
        if content:
            if isinstance(content, str):
                self._text(out, content)
            elif isinstance(content, list):
                self._parts(out, content)
        refusal = delta.get("refusal")
        if refusal and isinstance(refusal, str):
            self._refusal.append(refusal)
        for call in delta.get("tool_calls") or ():
            if isinstance(call, dict):
                self._tool_delta(out, call)

    def _reasoning(self, out: list[Any], delta: dict[str, Any]) -> None:
        """Reasoning text under any of the names servers give it."""
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if reasoning:
            for piece in texts(reasoning, "thinking"):
                self._add(out, "thinking", piece)
        elif delta.get("reasoning_details"):
            for piece in reasoning_details(delta["reasoning_details"]):
                self._add(out, "thinking", piece)

    def _parts(self, out: list[Any], parts: list[Any]) -> None:
        """Mistral's typed content parts: ``text``, and ``thinking`` holding text parts."""
        for part in parts:
            if not isinstance(part, dict):
                if isinstance(part, str) and part:
                    self._text(out, part)
                continue
            kind = part.get("type")
            if kind == "text" and part.get("text"):
                self._text(out, str(part["text"]))
            elif kind == "thinking":
                for piece in texts(part.get("thinking"), "thinking"):
                    self._add(out, "thinking", piece)

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
        wire = call.get("index")
        wire = wire if isinstance(wire, int) else len(self._tools) - (0 if call.get("id") else 1)
        function = call.get("function") or {}
        name = function.get("name")
        known = self._tools.get(wire)
        wire_id = call.get("id")
        if known is None or (wire_id and wire_id != known[1]) or self._repeats(known, name):
            self._close_current(out)
            index = len(self.builder.message.content)
            self._tools[wire] = (index, wire_id)
            call_id, original = self._ids.take(wire_id)
            start = ToolCallStart(
                content_index=index, id=call_id, name=name or "", original_id=original
            )
            self._emit(out, start)
            self._open_tools.append(index)
        else:
            index = known[0]
            block = self.builder.message.content[index]
            if name and isinstance(block, ToolCall) and not block.name:
                block.name = str(name)  # the name came after the first piece
            if index not in self._open_tools:
                # Pieces of two calls interleaved: this one was closed when the next began;
                # it is finished again (its toolcall_end repeated) once complete.
                self._open_tools.append(index)
        args = function.get("arguments")
        if isinstance(args, dict):  # some servers send the object itself
            args = json.dumps(args)
        if isinstance(args, str) and args:
            self._emit(out, ToolCallDelta(content_index=index, delta=args))

    def _repeats(self, known: tuple[int, str | None], name: Any) -> bool:
        """A named piece for a call whose arguments are already complete: a new call that
        reuses the index and id (servers sending each call whole under index 0)."""
        if not name or known[0] not in self._open_tools:
            return False
        raw = self.builder.raw_arguments(known[0])
        return bool(raw.strip()) and parse_tool_arguments(raw)[1] is None

    def _read_usage(self, raw: Any) -> None:
        if not isinstance(raw, dict):
            return
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
        if self._tags is not None:
            for kind, piece in self._tags.finish():
                self._add(out, kind, piece)
        self._close_current(out)
        if self.finish_reason is None and not self.done:
            raise ProviderError(
                f"Connection to {self.model.provider} closed before the response completed"
            )
        usage = finalize_usage(self.model, self.usage)
        reason = FINISH.get(self.finish_reason or "stop")
        if self._refusal and reason in ("stop", None):
            reason = "refusal"
        if reason is None:
            detail = redact(one_line(self.finish_reason or "", 100), self.model.secrets)
            return out, self.builder.finish(
                "error",
                usage=usage,
                error_message=f"{self.model.provider} stopped the response: {detail}",
            )
        if reason == "refusal":
            refusal = "".join(self._refusal) or self._filter or "the provider's content filter"
            return out, self.builder.finish("refusal", usage=usage, refusal=refusal)
        if self.builder.message.tool_calls and reason == "stop":
            reason = "toolUse"  # trust the content, not the declaration
        return out, self.builder.finish(reason, usage=usage)  # type: ignore[arg-type]


def _says_something(choice: dict[str, Any]) -> bool:
    delta = choice.get("delta") or {}
    return bool(
        choice.get("finish_reason")
        or delta.get("content")
        or delta.get("tool_calls")
        or delta.get("refusal")
        or delta.get("reasoning_content")
        or delta.get("reasoning")
        or delta.get("reasoning_details")
        or delta.get("thinking_blocks")
    )
