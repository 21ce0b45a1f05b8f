"""The cached request forms: the same bytes as converting from scratch, reused only while safe."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from agent_core.abort import AbortSignal
from agent_core.messages import (
    AssistantMessage,
    ImageContent,
    Message,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    freeze,
)
from agent_core.providers import anthropic, openai_compat, resolve_model
from agent_core.providers._request_forms import (
    AnthropicForms,
    OpenAIForms,
    SegmentCache,
    dumps,
    encode_body,
)
from agent_core.stream import LlmContext, StreamOptions, ToolSpec

OPENAI = resolve_model("openai/gpt-4o", api_key="sk-test")
MISTRAL = resolve_model("mistral/mistral-large-latest", api_key="sk-test")
CLAUDE = resolve_model("anthropic/claude-sonnet-4-5", api_key="sk-test")
TOOLS = [
    ToolSpec("read", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}}),
    ToolSpec(
        "bash", "Run — a command", {"type": "object", "properties": {"c": {"type": "string"}}}
    ),
]
OPTIONS = StreamOptions(model="m", cancel=AbortSignal())


def _call(rng: random.Random, n: int) -> ToolCall:
    ids = [f"call_{n}", f"toolu_{n}", f"weird id/{n}:é", "dup", "x" * 70]
    arguments: dict[str, Any] = {"path": f"f{n}.txt", "nested": {"list": [1, 2.5, None, "ü"]}}
    raw = rng.choice([None, None, None, '{"broken": '])
    return ToolCall(
        id=rng.choice(ids),
        name=rng.choice(["read", "bash"]),
        arguments=arguments,
        raw_arguments=raw,
    )


def _assistant(rng: random.Random, n: int) -> AssistantMessage:
    content: list[Any] = []
    if rng.random() < 0.3:
        content.append(ThinkingContent(thinking=f"hmm {n}", signature=rng.choice([None, "sig"])))
    if rng.random() < 0.8:
        content.append(TextContent(text=rng.choice(["", f'step {n} \u2028 "quoted"', "🙂"])))
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        content.append(_call(rng, n))
    provider = rng.choice(["openai", "anthropic", ""])
    stop = rng.choice(["stop", "toolUse", "toolUse", "error", "aborted", "length"])
    return AssistantMessage(content=content, provider=provider, stop_reason=stop)


def _results(rng: random.Random, message: AssistantMessage, n: int) -> list[Message]:
    out: list[Message] = []
    for call in message.tool_calls:
        if rng.random() < 0.1:
            continue  # a call left without a result
        content: list[Any] = [TextContent(text=rng.choice(["", f"result {n}", "line\nline"]))]
        if rng.random() < 0.15:
            content.append(ImageContent(data="aGVsbG8=", mime_type="image/png"))
        out.append(
            ToolResultMessage(
                tool_call_id=call.id,
                tool_name=call.name,
                content=content,
                is_error=rng.random() < 0.2,
            )
        )
    if rng.random() < 0.05:
        out.append(ToolResultMessage(tool_call_id="orphan", tool_name="read", content="x"))
    return out


def _history(rng: random.Random, turns: int) -> list[list[Message]]:
    """The history as it grows, one list per turn (messages frozen as the loop would, mostly)."""
    messages: list[Message] = []
    steps = []
    for n in range(turns):
        if n == 0 or rng.random() < 0.2:
            messages.append(UserMessage(content=f"please do {n}"))
        assistant = _assistant(rng, n)
        messages.append(assistant)
        messages.extend(_results(rng, assistant, n))
        if rng.random() < 0.1:
            messages.append(UserMessage(content="a steer after the results"))
        for message in messages:
            if rng.random() < 0.9:
                freeze(message)
        steps.append(list(messages))
    return steps


def _openai(model: Any, context: LlmContext, forms: OpenAIForms | None) -> bytes:
    body = openai_compat.build_request(model, context, OPTIONS, forms)
    return encode_body(body) if forms is not None else dumps(body).encode()


def _anthropic(context: LlmContext, forms: AnthropicForms | None) -> bytes:
    body = anthropic.build_request(CLAUDE, context, OPTIONS, forms)
    return encode_body(body) if forms is not None else dumps(body).encode()


@pytest.mark.parametrize("seed", range(12))
def test_cached_bodies_are_the_bytes_of_a_fresh_conversion(seed: int) -> None:
    rng = random.Random(seed)
    encode_tools = lambda tools: dumps(openai_compat.openai_tools(tools))  # noqa: E731
    openai_forms = OpenAIForms("openai", encode_tools)
    mistral_forms = OpenAIForms("mistral", encode_tools)
    anthropic_forms = AnthropicForms(lambda tools: dumps(anthropic.anthropic_tools(tools)))
    for messages in _history(rng, 30):
        context = LlmContext(
            system_prompt=rng.choice(["", "You are pi."]), messages=messages, tools=TOOLS
        )
        assert _openai(OPENAI, context, openai_forms) == _openai(OPENAI, context, None)
        assert _openai(MISTRAL, context, mistral_forms) == _openai(MISTRAL, context, None)
        assert _anthropic(context, anthropic_forms) == _anthropic(context, None)
        json.loads(_anthropic(context, anthropic_forms))  # and it is JSON


def test_a_compacted_or_rewritten_history_and_two_conversations_on_one_cache() -> None:
    rng = random.Random(99)
    forms = AnthropicForms(lambda tools: dumps(anthropic.anthropic_tools(tools)))
    first, second = _history(rng, 25), _history(rng, 25)
    for a, b in zip(first, second, strict=True):
        for messages in (a, b, [UserMessage(content="summary"), *a[len(a) // 2 :]]):
            context = LlmContext(system_prompt="s", messages=messages)
            assert _anthropic(context, forms) == _anthropic(context, None)


def test_finished_segments_are_converted_once() -> None:
    converted: list[int] = []

    def convert(segment: list[Message]) -> int:
        converted.append(len(segment))
        return len(segment)

    cache: SegmentCache[int] = SegmentCache(convert)
    messages: list[Message] = [freeze(UserMessage(content="go"))]
    for n in range(200):
        call = ToolCall(id=f"c{n}", name="read", arguments={"path": "x"})
        messages.append(freeze(AssistantMessage(content=[call], stop_reason="toolUse")))
        messages.append(
            freeze(ToolResultMessage(tool_call_id=f"c{n}", tool_name="read", content="ok"))
        )
        before = len(converted)
        cache.forms(messages)
        assert len(converted) - before == (2 if n == 0 else 1)  # only the new segment


def test_an_unfinished_message_is_converted_every_time_and_changes_are_seen() -> None:
    forms = OpenAIForms("openai", lambda tools: "[]")
    loose = UserMessage(content="first words")  # built by a caller, never frozen
    context = LlmContext(system_prompt="", messages=[freeze(UserMessage(content="hi")), loose])
    assert "first words" in forms.messages("", context.messages)
    loose.content = [TextContent(text="second words")]
    text = forms.messages("", context.messages)
    assert "second words" in text and "first words" not in text


def test_a_frozen_message_cannot_change_in_place_and_its_copies_can() -> None:
    call = ToolCall(id="c", name="edit", arguments={"edits": [{"old": "a"}]})
    message = freeze(AssistantMessage(content=[TextContent(text="t"), call]))
    attempts = [
        lambda: setattr(message, "stop_reason", "error"),
        lambda: message.content.append(TextContent(text="more")),
        lambda: message.content.__setitem__(0, TextContent(text="x")),
        lambda: setattr(message.content[0], "text", "changed"),
        lambda: message.tool_calls[0].arguments.update(path="y"),
        lambda: message.tool_calls[0].arguments["edits"][0].__setitem__("old", "b"),
        lambda: message.tool_calls[0].arguments["edits"].append({}),
    ]
    for attempt in attempts:
        with pytest.raises(TypeError, match="cannot be changed in place"):
            attempt()
    copy = message.model_copy(deep=True)
    copy.stop_reason = "error"
    copy.content.append(TextContent(text="more"))
    copy.tool_calls[0].arguments["edits"][0]["old"] = "b"
    assert message.tool_calls[0].arguments == {"edits": [{"old": "a"}]}
    shallow = message.model_copy(update={"content": [TextContent(text="new")]})
    shallow.model = "other"
    assert message.model == "" and message.text == "t"
