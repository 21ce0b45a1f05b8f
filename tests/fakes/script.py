"""Scripted turns for the fake provider server (dataclasses, loadable from JSON)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class ToolCallSpec:
    """One tool call the fake model makes. ``arguments`` may be a dict or raw (even invalid) JSON.

    ``id=None`` lets the wire invent one; ``id=""`` sends the call with no id at all.
    """

    name: str
    arguments: dict[str, Any] | str = field(default_factory=dict)
    id: str | None = None

    def arguments_json(self) -> str:
        """The argument text exactly as it goes on the wire."""
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments)


@dataclass
class UsageSpec:
    """Token counts reported for a turn (``input`` excludes cached tokens)."""

    input: int = 10
    output: int = 5
    cache_read: int = 0
    cache_write: int = 0


@dataclass
class Turn:
    """One scripted model response, or one fault consumed by one request.

    Content: ``thinking`` (+ ``thinking_signature``, or ``redacted_thinking`` data for Anthropic),
    ``text``, ``tool_calls``, ``usage``; ``stop_reason`` overrides the natural one (use the
    Anthropic/OpenAI neutral names ``stop``, ``length``, ``toolUse``).
    Streaming shape: ``chunk_size`` splits text, thinking and argument JSON into pieces
    (0 = one piece); ``chunk_delay_s`` sleeps between SSE events.
    Faults: ``status`` (HTTP error with ``error_message``, ``error_type``, ``retry_after``),
    ``malformed_sse_line`` (sent after the first event, then the stream continues),
    ``disconnect_after_chunks`` (cut the connection after that many SSE events),
    ``hang`` (accept the request, never answer),
    ``stream_error`` (an error object sent inside the 200 stream after ``stream_error_after_chunks``
    events, which then ends: an OpenAI ``{"error": ...}`` chunk or an Anthropic ``event: error``;
    e.g. ``{"type": "overloaded_error", "message": "Overloaded"}``).

    Wire shapes real providers send: ``refusal`` (OpenAI ``delta.refusal`` pieces; Anthropic
    ``stop_reason: refusal`` with ``stop_details`` carrying ``refusal_category`` and
    ``refusal_explanation``), ``content_parts`` (Mistral/Magistral: ``delta.content`` as a list
    of typed ``text``/``thinking`` parts), ``think_tags`` (a local server's ``<think>...</think>``
    inside the content), ``usage_mode`` (``separate``: a last chunk with ``choices: []``;
    ``finish``: on the finish chunk; ``every``: cumulative on every chunk; ``none``).

    Raw bodies and transport faults: ``raw`` (body chunks sent verbatim, each its own write) or
    ``capture`` (a file of ``tests/fakes/captures`` replayed byte for byte, one write per event),
    ``raw_chunk_bytes`` (re-split any body into writes of that many bytes, cutting UTF-8
    characters and lines apart), ``content_type`` (instead of ``text/event-stream``),
    ``json_body`` (a complete JSON body instead of a stream, with ``status`` or 200),
    ``redirect_to`` (HTTP 302 with that Location), ``first_byte_delay_s`` (headers at once, the
    first body byte after that delay), ``stall_after_chunks`` (stop sending after that many
    writes and keep the connection open until the client leaves), ``ping_interval_s`` (while
    stalled, send an SSE comment ``: ping`` that often), ``reset_after_chunks`` (a TCP reset).
    """

    text: str | None = None
    thinking: str | None = None
    thinking_signature: str | None = "sig-fake"
    redacted_thinking: str | None = None
    tool_calls: list[ToolCallSpec] = field(default_factory=list)
    usage: UsageSpec = field(default_factory=UsageSpec)
    stop_reason: str | None = None
    chunk_size: int = 16
    chunk_delay_s: float = 0.0
    status: int | None = None
    error_message: str | None = None
    error_type: str | None = None
    retry_after: float | None = None
    malformed_sse_line: str | None = None
    disconnect_after_chunks: int | None = None
    hang: bool = False
    stream_error: dict[str, Any] | None = None
    stream_error_after_chunks: int = 1
    refusal: str | None = None
    refusal_category: str | None = None
    refusal_explanation: str | None = None
    content_parts: bool = False
    think_tags: bool = False
    usage_mode: str = "separate"
    raw: list[str] | None = None
    capture: str | None = None
    raw_chunk_bytes: int = 0
    content_type: str | None = None
    json_body: Any = None
    redirect_to: str | None = None
    first_byte_delay_s: float = 0.0
    stall_after_chunks: int | None = None
    stall_s: float | None = None
    ping_interval_s: float | None = None
    reset_after_chunks: int | None = None

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Turn:
        """Build a turn from its JSON form (snake_case keys, as written by :meth:`to_dict`)."""
        data = dict(data)
        calls = [
            c if isinstance(c, ToolCallSpec) else ToolCallSpec(**c)
            for c in data.pop("tool_calls", [])
        ]
        usage = data.pop("usage", None)
        usage_spec = usage if isinstance(usage, UsageSpec) else UsageSpec(**(usage or {}))
        return cls(tool_calls=calls, usage=usage_spec, **data)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form of this turn."""
        return asdict(self)


def load_script(path: str | Path) -> list[Turn]:
    """Read a script file: a JSON list of turns, or ``{"turns": [...]}``."""
    data = json.loads(Path(path).read_text())
    if isinstance(data, dict):
        data = data.get("turns", [])
    return [Turn.from_dict(item) for item in data]


def load_routes(path: str | Path) -> dict[str, list[Turn]]:
    """The ``routes`` of a script file (``{"turns": [...], "routes": {KEY: [...]}}``)."""
    data = json.loads(Path(path).read_text())
    routes = data.get("routes", {}) if isinstance(data, dict) else {}
    return {key: [Turn.from_dict(item) for item in turns] for key, turns in routes.items()}


def dump_script(
    turns: list[Turn], path: str | Path, routes: dict[str, list[Turn]] | None = None
) -> Path:
    """Write turns (and routes) as a script file usable with ``--script``."""
    target = Path(path)
    if routes:
        data: Any = {
            "turns": [t.to_dict() for t in turns],
            "routes": {k: [t.to_dict() for t in v] for k, v in routes.items()},
        }
    else:
        data = [t.to_dict() for t in turns]
    target.write_text(json.dumps(data, indent=2))
    return target


SEED_FINAL_TEXT = "This is a tiny Node.js project: hello.mjs prints a greeting."


def seed_script() -> list[Turn]:
    """The SPEC §1 seed scenario: bash ls, read package.json, read hello.mjs, final answer."""
    return [
        Turn(
            tool_calls=[ToolCallSpec("bash", {"command": "ls -la"}, id="call_1")],
            usage=UsageSpec(input=120, output=20),
        ),
        Turn(
            tool_calls=[ToolCallSpec("read", {"path": "package.json"}, id="call_2")],
            usage=UsageSpec(input=180, output=18, cache_read=100),
        ),
        Turn(
            tool_calls=[ToolCallSpec("read", {"path": "hello.mjs"}, id="call_3")],
            usage=UsageSpec(input=220, output=18, cache_read=150),
        ),
        Turn(text=SEED_FINAL_TEXT, usage=UsageSpec(input=260, output=16, cache_read=200)),
    ]
