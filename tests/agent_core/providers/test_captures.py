"""Real provider streams (tests/fakes/captures) replayed byte for byte through the transports.

Each capture goes over loopback HTTP as the vendor's server sent it (one write per event) and
cut into 7-byte writes (lines, JSON and UTF-8 characters split anywhere): the outcome must be
the same either way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent_core import AssistantMessage, ThinkingContent
from tests.agent_core.providers.conformance import Harness
from tests.fakes import Turn
from tests.fakes.captures import capture_bytes, capture_names

CAPTURES = Path(__file__).resolve().parents[2] / "fakes" / "captures"


def thinking_of(message: AssistantMessage) -> str:
    return "".join(b.thinking for b in message.content if isinstance(b, ThinkingContent))


@dataclass
class Expect:
    protocol: str
    check: Callable[[AssistantMessage], None]


def _refusal_openai(m: AssistantMessage) -> None:
    assert m.stop_reason == "refusal"
    assert m.refusal == "I'm sorry, but I can't assist with that request."
    assert m.text == ""


def _length_openai(m: AssistantMessage) -> None:
    assert m.stop_reason == "length" and m.text == '{"'


def _parallel_tools(m: AssistantMessage) -> None:
    assert m.stop_reason == "toolUse"
    calls = m.tool_calls
    assert [c.id for c in calls] == [
        "call_DUIfURCaEhuke5aUHUG9drKQ",
        "call_bxtBSMiFZj9tpEEoR2HvbYAV",
    ]
    assert calls[0].arguments == {"city": "Edinburgh", "country": "UK", "units": "c"}
    assert calls[1].arguments == {"ticker": "AAPL", "exchange": "NASDAQ"}
    assert all(c.original_id is None and c.raw_arguments is None for c in calls)


def _three_choices(m: AssistantMessage) -> None:
    # n=3 interleaves three answers (the third a refusal): only choice 0 is ours.
    assert m.stop_reason == "stop"
    assert json.loads(m.text) == {"city": "San Francisco", "temperature": 63, "units": "f"}


def _refusal_anthropic(m: AssistantMessage) -> None:
    assert m.stop_reason == "refusal"
    assert m.refusal == "This request was refused due to policy."


def _tool_use_anthropic(m: AssistantMessage) -> None:
    assert m.stop_reason == "toolUse"
    assert m.text == "I'll check the current weather in Paris for you."
    assert [(c.id, c.name, c.arguments) for c in m.tool_calls] == [
        ("toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", {"location": "Paris"})
    ]


def _cut_tool_json(m: AssistantMessage) -> None:
    # max_tokens in the middle of the call's JSON: the answer is "cut", the call is kept with
    # its raw text (the loop answers it with an error the model can act on), nothing is lost.
    assert m.stop_reason == "length"
    assert m.text.startswith("I'll create a comprehensive tax guide")
    (call,) = m.tool_calls
    assert call.name == "make_file" and call.raw_arguments is not None
    assert call.raw_arguments.startswith('{"filename": "taxes.txt"')


def _magistral(m: AssistantMessage) -> None:
    assert m.stop_reason == "stop"
    thought = thinking_of(m)
    assert thought.startswith("Okay, the user is asking how to cross the street.")
    assert m.text.startswith("To cross the street safely, follow these steps")
    assert "Okay, the user" not in m.text
    assert m.usage.output == 232 and m.usage.input == 10


def _think_tags(m: AssistantMessage) -> None:
    assert m.stop_reason == "stop"
    assert "<think>" not in m.text and "</think>" not in m.text
    assert "</think>" not in thinking_of(m) and len(thinking_of(m)) > 1000
    assert m.text.startswith("To make Uruguayan alfajores")


def _deepseek(m: AssistantMessage) -> None:
    assert m.stop_reason == "stop"
    assert len(thinking_of(m)) > 500 and m.text
    assert [b.type for b in m.content] == ["thinking", "text"]


def _length_then_error(m: AssistantMessage) -> None:
    # "Token limit reached" after finish_reason length: a cut answer, not a context overflow.
    assert m.stop_reason == "length", m.error_message
    # reasoning and reasoning_details carry the same text: it is taken once
    assert thinking_of(m) == "We need to respond to a greeting. The user"


def _reasoning_details(m: AssistantMessage) -> None:
    assert m.stop_reason == "stop" and m.refusal is None  # "refusal": "" on every chunk
    assert thinking_of(m) == "15 * 27 = 405"
    assert m.text.startswith("15 × 27 = **405**")


def _groq_error(m: AssistantMessage) -> None:
    assert m.stop_reason == "error"
    assert "tool_use_failed" in (m.error_message or "") or "Tool call validation failed" in (
        m.error_message or ""
    )


def _spliced(m: AssistantMessage) -> None:
    # A second message_start mid-stream (a proxy splicing a retried response in): an error,
    # never a mix of both responses' blocks under the same indices.
    assert m.stop_reason == "error" and "second response" in (m.error_message or "")
    assert [c.id for c in m.tool_calls] in ([], ["toolu_first"])


def _duplicate_start(m: AssistantMessage) -> None:
    assert m.stop_reason == "stop" and m.text == "Hello, World!"


def _responses_text(m: AssistantMessage) -> None:
    assert m.stop_reason == "stop" and m.text == "The capital of France is Paris."
    assert (m.usage.input, m.usage.output, m.usage.cache_read) == (278, 9, 0)


def _responses_tool_call(m: AssistantMessage) -> None:
    assert m.stop_reason == "toolUse" and m.text == ""
    assert [(c.id, c.name, c.arguments) for c in m.tool_calls] == [
        ("call_kL0PCQV7M2WMoVX8V8OtYSAL", "get_capital", {"country": "France"})
    ]


def _responses_encrypted_reasoning(m: AssistantMessage) -> None:
    # gpt-5 without a summary: a blank thinking block that keeps the encrypted item for replay.
    assert m.stop_reason == "stop" and m.text == "Paris."
    (thought,) = [b for b in m.content if isinstance(b, ThinkingContent)]
    assert thought.thinking == ""
    item = json.loads(thought.signature or "")
    assert item["type"] == "reasoning" and item["encrypted_content"].startswith("gAAAAAB")
    assert "id" not in item  # stateless: ids of unstored items are never sent back


def _responses_summary_parts(m: AssistantMessage) -> None:
    # o3-mini, summary "detailed": several summary parts, shown as one thought.
    assert m.stop_reason == "stop" and m.text.startswith("I'm not a road safety professional")
    (thought,) = [b for b in m.content if isinstance(b, ThinkingContent)]
    parts = [p["text"] for p in json.loads(thought.signature or "")["summary"]]
    assert len(parts) > 1 and thought.thinking == "\n\n".join(parts)
    assert m.usage.output == 1680


def _responses_reasoning_tool(m: AssistantMessage) -> None:
    assert m.stop_reason == "toolUse"
    assert thinking_of(m).startswith("**Calculating step-by-step using calculator**")
    assert [(c.id, c.arguments) for c in m.tool_calls] == [
        ("call_AB6AaRZ1FYZB2RwS6A5vbdqn", {"a": 12, "b": 7, "op": "add"})
    ]
    assert [b.type for b in m.content] == ["thinking", "toolCall"]


def _responses_error(m: AssistantMessage) -> None:
    # `error` then `response.failed` mid-stream: one line, not retried (a quota is no glitch).
    assert m.stop_reason == "error"
    assert "insufficient_quota" in (m.error_message or "") and "\n" not in (m.error_message or "")


def _copilot_rotated_ids(m: AssistantMessage) -> None:
    # GitHub Copilot's Responses API gives every event of an item a new item_id: the output
    # index is what ties them together, so nothing is split or lost.
    assert m.stop_reason == "stop"
    assert m.text.startswith("There are **3** letter **\u201cr\u201d**s in **\u201cstrawberry.")
    assert m.text.endswith("at positions **3, 8, and 9**.")
    assert thinking_of(m) == "**Counting character occurrences**"
    assert [b.type for b in m.content] == ["thinking", "text"]
    assert (m.usage.input, m.usage.output) == (19, 105)


EXPECT = {
    "openai_refusal.sse": Expect("openai", _refusal_openai),
    "openai_length.sse": Expect("openai", _length_openai),
    "openai_parallel_tools.sse": Expect("openai", _parallel_tools),
    "openai_three_choices.sse": Expect("openai", _three_choices),
    "anthropic_refusal.sse": Expect("anthropic", _refusal_anthropic),
    "anthropic_tool_use.sse": Expect("anthropic", _tool_use_anthropic),
    "anthropic_cut_tool_json.sse": Expect("anthropic", _cut_tool_json),
    "mistral_magistral_thinking.sse": Expect("openai", _magistral),
    "groq_think_tags.sse": Expect("openai", _think_tags),
    "deepseek_reasoning_content.sse": Expect("openai", _deepseek),
    "openrouter_length_then_error.sse": Expect("openai", _length_then_error),
    "snowflake_reasoning_details.sse": Expect("openai", _reasoning_details),
    "groq_stream_error_after_reasoning.sse": Expect("openai", _groq_error),
    "anthropic_spliced_message_start.sse": Expect("anthropic", _spliced),
    "anthropic_duplicate_message_start.sse": Expect("anthropic", _duplicate_start),
    "responses_text.sse": Expect("responses", _responses_text),
    "responses_tool_call.sse": Expect("responses", _responses_tool_call),
    "responses_encrypted_reasoning_text.sse": Expect("responses", _responses_encrypted_reasoning),
    "responses_reasoning_summary_parts.sse": Expect("responses", _responses_summary_parts),
    "responses_reasoning_tool_call.sse": Expect("responses", _responses_reasoning_tool),
    "responses_error_mid_stream.sse": Expect("responses", _responses_error),
    "copilot_responses_rotated_ids.sse": Expect("responses", _copilot_rotated_ids),
}


def test_every_capture_has_an_expectation() -> None:
    assert sorted(EXPECT) == capture_names()


@pytest.mark.parametrize("split", [0, 7])
@pytest.mark.parametrize("name", sorted(EXPECT))
async def test_capture_native(name: str, split: int) -> None:
    expect = EXPECT[name]
    h = Harness(expect.protocol, "native")
    async with h.serve(Turn(capture=name, raw_chunk_bytes=split)):
        run = await h.run()
    expect.check(run.final)
    assert len(h.server.requests) == 1  # type: ignore[union-attr]  # nothing was retried


async def test_real_parallel_calls_in_one_responses_answer() -> None:
    """gpt-4o calling one tool twice in one Responses answer (recorded, not streamed: no
    recorded stream with two calls exists in the public corpora searched, see the README),
    served as the complete JSON body a gateway ignoring ``stream: true`` would send."""
    body = json.loads((CAPTURES / "responses_parallel_calls.json").read_text(encoding="utf-8"))
    h = Harness("responses", "native")
    async with h.serve(Turn(json_body=body)):
        run = await h.run()
    m = run.final
    assert m.stop_reason == "toolUse" and m.text == ""
    assert [(c.id, c.name, c.arguments) for c in m.tool_calls] == [
        ("call_LWVp74L5HaH2KNvgVz9PJsrj", "get_location", {"loc_name": "Londos"}),
        ("call_YnRAWeTyxI91m5uNa5bxXwVO", "get_location", {"loc_name": "London"}),
    ]


def test_replay_is_byte_exact() -> None:
    import httpx

    from tests.fakes import FakeProviderServer

    for name in ("openai_refusal.sse", "groq_think_tags.sse"):
        with FakeProviderServer([Turn(capture=name, raw_chunk_bytes=5)]) as server:
            body = httpx.post(f"{server.openai_base_url}/chat/completions", json={}).content
        assert body == capture_bytes(name)


@pytest.mark.parametrize(
    "name", ["anthropic_refusal.sse", "anthropic_tool_use.sse", "groq_think_tags.sse"]
)
async def test_capture_litellm(name: str) -> None:
    # litellm re-parses the stream itself; what it passes on must come out the same.
    expect = EXPECT[name]
    h = Harness(expect.protocol, "litellm")
    async with h.serve(Turn(capture=name)):
        run = await h.run()
    expect.check(run.final)


async def test_magistral_through_litellms_mistral_route() -> None:
    # litellm's own Mistral transformation turns the thinking parts into reasoning_content
    # with thinking_blocks signed "mistral": still thinking, and never an Anthropic signature.
    h = Harness("openai", "litellm")
    async with h.serve(Turn(capture="mistral_magistral_thinking.sse")):
        model = h.model().model_copy(
            update={"litellm_model": "mistral/magistral-medium-latest", "provider": "mistral"}
        )
        run = await h.run(model=model)
    assert thinking_of(run.final).startswith("Okay, the user is asking")
    assert run.final.text.startswith("To cross the street safely")
