"""A request's history and tools, converted and encoded once and reused every turn (issue 25).

Each turn sends the whole history. Converting and JSON-encoding it again each time made a
turn's cost grow with the conversation, so a stream function keeps each finished part's
encoded form:

* The history is cut into **segments**: a message that is not a tool result, with the tool
  results that follow it. Normalising a history (:mod:`._history`) never looks past one (every
  new non-result message closes the calls still open), so a segment's request form depends on
  its own messages only, and on the tool-id mapping, which lives as long as the cache (one
  mapping for the whole conversation: a call and its result always get the same id).
* A segment whose messages are all frozen (finished: :mod:`agent_core._frozen`) is cached,
  keyed by the identity of its messages. Anything else is converted afresh each time.
* The body is written around the cached JSON text (:class:`Raw`), in the same bytes
  ``json.dumps`` would give for the whole (``tests/agent_core/providers/test_request_forms.py``
  compares them over many histories).

What is left per turn is a pass over the message list (identity checks) and joining strings.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from operator import is_
from typing import Any, Generic, TypeVar

from agent_core._frozen import is_frozen
from agent_core.messages import Message, ToolResultMessage
from agent_core.providers._convert import anthropic_entries, openai_entries
from agent_core.providers._history import normalize_history
from agent_core.providers._tool_ids import IdStyle, OutgoingIds
from agent_core.stream import ToolSpec

T = TypeVar("T")

_CACHE_CONTROL = ',"cache_control":{"type":"ephemeral"}}'


def dumps(value: Any) -> str:
    """JSON text exactly as httpx encodes a ``json=`` body."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class Raw(str):
    """JSON text to be written into a body as it is (already encoded)."""

    __slots__ = ()


def encode_body(body: dict[str, Any]) -> bytes:
    """``body`` as JSON bytes; a top-level :class:`Raw` value is written as it is."""
    if not any(isinstance(value, Raw) for value in body.values()):
        return dumps(body).encode()
    parts = [
        f"{dumps(key)}:{value if isinstance(value, Raw) else dumps(value)}"
        for key, value in body.items()
    ]
    return ("{" + ",".join(parts) + "}").encode()


def split_segments(messages: list[Message]) -> list[list[Message]]:
    """Each non-result message with the tool results after it (leading results: their own)."""
    segments: list[list[Message]] = []
    for message in messages:
        if segments and isinstance(message, ToolResultMessage):
            segments[-1].append(message)
        else:
            segments.append([message])
    return segments


class SegmentCache(Generic[T]):
    """``convert(segment)`` for each segment, cached while its messages are frozen and alive.

    The common case, a history that only grew since the last call, costs one identity
    comparison (in C) of the part seen before plus the new segments: the longest run of
    finished, frozen segments seen last time is kept as it is (its messages and forms).

    One stream function may serve several conversations at once (sub-agents), so an entry is
    kept until it has gone unused for :attr:`KEEP_CALLS` calls, not dropped at the first call
    that does not need it.
    """

    KEEP_CALLS = 16

    def __init__(self, convert: Callable[[list[Message]], T]) -> None:
        self._convert = convert
        # id of a segment's first message -> [the segment, its form, the call that last used
        # it]. The segment keeps its messages alive: an id is never reused while held here.
        self._held: dict[int, list[Any]] = {}
        self._calls = 0
        # The last call's leading frozen segments (all but its last segment): their messages
        # in order and their forms.
        self._stable_messages: list[Message] = []
        self._stable_forms: list[T] = []

    def forms(self, messages: list[Message]) -> list[T]:
        """The form of every segment of ``messages``, in order."""
        self._calls += 1
        stable = self._stable_messages
        size = len(stable)
        if (
            size
            and len(messages) >= size
            and all(map(is_, stable, messages))
            and (len(messages) == size or not isinstance(messages[size], ToolResultMessage))
        ):
            head, tail = self._stable_forms, split_segments(messages[size:])
        else:
            stable, size, head, tail = [], 0, [], split_segments(messages)
        tail_forms = [self._form(segment) for segment in tail]
        self._stable_messages, self._stable_forms = list(stable), list(head)
        for segment, form in zip(tail[:-1], tail_forms, strict=False):
            if not all(map(is_frozen, segment)):
                break
            self._stable_messages.extend(segment)
            self._stable_forms.append(form)
        if self._calls % self.KEEP_CALLS == 0:
            calls = self._calls
            self._held = {k: e for k, e in self._held.items() if e[2] > calls - self.KEEP_CALLS}
        return head + tail_forms

    def _form(self, segment: list[Message]) -> T:
        key = id(segment[0])
        entry = self._held.get(key)
        if entry is None or len(entry[0]) != len(segment) or not all(map(is_, entry[0], segment)):
            form = self._convert(segment)
            if all(map(is_frozen, segment)):
                self._held[key] = [segment, form, self._calls]
            return form
        entry[2] = self._calls
        return entry[1]  # type: ignore[no-any-return]


class ToolsCache:
    """The encoded tool list, while the specs are the same objects (see ``tool_specs``)."""

    def __init__(self, encode: Callable[[list[ToolSpec]], str]) -> None:
        self._encode = encode
        self._held: tuple[list[ToolSpec], str] | None = None

    def text(self, tools: list[ToolSpec]) -> Raw:
        held = self._held
        if held is None or len(held[0]) != len(tools) or not all(map(is_, held[0], tools)):
            held = (list(tools), self._encode(tools))
            self._held = held
        return Raw(held[1])


class OpenAIForms:
    """Chat Completions ``messages`` and ``tools`` of one conversation, cached.

    A segment's form is the JSON text of its entries joined by commas ("" when it has none).
    """

    def __init__(self, style: IdStyle, encode_tools: Callable[[list[ToolSpec]], str]) -> None:
        self.ids = OutgoingIds(style)
        self.segments: SegmentCache[str] = SegmentCache(self._segment)
        self.tools = ToolsCache(encode_tools)
        self._system: tuple[str, str] = ("", "")

    def _segment(self, segment: list[Message]) -> str:
        entries = openai_entries(normalize_history(segment), self.ids)
        return ",".join(dumps(entry) for entry in entries)

    def messages(self, system_prompt: str, messages: list[Message]) -> Raw:
        forms = self.segments.forms(messages)
        if system_prompt:
            if self._system[0] != system_prompt:
                self._system = (system_prompt, dumps({"role": "system", "content": system_prompt}))
            forms.insert(0, self._system[1])
        return Raw("[" + ",".join(filter(None, forms)) + "]")


class AnthropicForms:
    """Messages API ``messages`` and ``tools`` of one conversation, cached.

    A segment's form is its (role, encoded blocks) entries; entries of one role in a row are
    merged here and the last user entry's last block gets the prompt-cache breakpoint, as
    :func:`~._convert.anthropic_messages` does.
    """

    def __init__(self, encode_tools: Callable[[list[ToolSpec]], str]) -> None:
        self.ids = OutgoingIds("anthropic")
        self.segments: SegmentCache[list[tuple[str, list[str]]]] = SegmentCache(self._segment)
        self.tools = ToolsCache(encode_tools)

    def _segment(self, segment: list[Message]) -> list[tuple[str, list[str]]]:
        entries = anthropic_entries(normalize_history(segment), self.ids)
        return [(role, [dumps(block) for block in blocks]) for role, blocks in entries]

    def messages(self, messages: list[Message], *, cache: bool = True) -> Raw:
        merged: list[tuple[str, list[str]]] = []
        for form in self.segments.forms(messages):
            for role, blocks in form:
                if merged and merged[-1][0] == role:
                    merged[-1][1].extend(blocks)
                else:
                    merged.append((role, list(blocks)))
        if cache:
            for role, blocks in reversed(merged):
                if role == "user":
                    blocks[-1] = blocks[-1][:-1] + _CACHE_CONTROL
                    break
        entries = [
            '{"role":' + dumps(role) + ',"content":[' + ",".join(blocks) + "]}"
            for role, blocks in merged
        ]
        return Raw("[" + ",".join(entries) + "]")
