"""The OpenAI Responses transport beyond the shared conformance cases and the captures.

What goes out (stateless requests carrying reasoning back), what the catalogue and settings
choose, the cases no public capture shows (parallel calls, refusal parts, incomplete), a
complete JSON body, and hostile streams.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_core import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    user_message,
)
from agent_core.providers import ModelConfigError, resolve_model
from agent_core.providers._responses_accumulator import ResponsesAccumulator
from agent_core.providers.errors import ProviderError
from tests.agent_core.providers.conformance import Harness
from tests.fakes import ToolCallSpec, Turn


def _model(**env: str) -> Any:
    return resolve_model(
        "openai/gpt-4o", api_key="sk-x", openai_api="responses", env={"PI_HOME": "/nonexistent"}
    )


# ---------------------------------------------------------------------------- choosing the API


def test_catalogue_picks_responses_for_responses_only_models() -> None:
    env = {"OPENAI_API_KEY": "sk-x", "PI_HOME": "/nonexistent"}
    assert resolve_model("openai/gpt-5-codex", env=env).api == "openai-responses"
    assert resolve_model("openai/gpt-4o", env=env).api == "openai-completions"


def test_setting_and_environment_choose_the_api() -> None:
    env = {"OPENAI_API_KEY": "sk-x", "PI_HOME": "/nonexistent"}
    assert resolve_model("openai/gpt-4o", env=env, openai_api="responses").api == (
        "openai-responses"
    )
    assert resolve_model("openai/gpt-5-codex", env=env, openai_api="completions").api == (
        "openai-completions"
    )
    assert resolve_model("openai/gpt-4o", env={**env, "PI_OPENAI_API": "responses"}).api == (
        "openai-responses"
    )
    with pytest.raises(ModelConfigError, match="completions, responses"):
        resolve_model("openai/gpt-4o", env=env, openai_api="assistants")
    # Other providers keep their own API whatever the OpenAI setting says.
    groq = resolve_model(
        "groq/llama-3.3-70b-versatile", env={"GROQ_API_KEY": "k"}, openai_api="responses"
    )
    assert groq.api == "openai-completions"


@pytest.mark.parametrize("api", ["openai-responses", "responses"])
def test_models_json_declares_a_responses_provider(tmp_path: Path, api: str) -> None:
    models = tmp_path / "models.json"
    provider = {"baseUrl": "https://gw.example/v1", "api": api, "models": [{"id": "m1"}]}
    models.write_text(json.dumps({"providers": {"gw": provider}}))
    assert resolve_model("gw/m1", models_file=models, env={}).api == "openai-responses"


# ---------------------------------------------------------------------------- what goes out


async def test_reasoning_and_calls_go_back_stateless() -> None:
    """Turn 1 reasons and calls a tool; turn 2 sends it all back: encrypted reasoning, the call,
    its output, no item ids, store false, the system prompt as instructions."""
    h = Harness("responses", "native")
    first = Turn(
        thinking="Need the file.",
        thinking_signature="ENC-1",
        tool_calls=[
            ToolCallSpec("read", {"path": "a.txt"}, id="call_a"),
            ToolCallSpec("bash", {"command": "ls"}, id="call_b"),
        ],
    )
    async with h.serve(first, Turn(text="done")):
        run = await h.run(
            thinking="high", model=h.model().model_copy(update={"supports_reasoning": True})
        )
        assert [c.id for c in run.final.tool_calls] == ["call_a", "call_b"]  # parallel calls
        results = [
            ToolResultMessage(
                tool_call_id=c.id, tool_name=c.name, content=[TextContent(text=f"out {c.id}")]
            )
            for c in run.final.tool_calls
        ]
        second = await h.run(messages=[user_message("hi"), run.final, *results])
        body = h.server.requests[1]  # type: ignore[union-attr]
    assert second.final.text == "done"
    first_body = h.server.requests[0]  # type: ignore[union-attr]
    assert first_body["store"] is False and "previous_response_id" not in first_body
    assert first_body["include"] == ["reasoning.encrypted_content"]
    assert first_body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert first_body["instructions"] == "You are a test."
    assert body["input"] == [
        {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "Need the file."}],
            "encrypted_content": "ENC-1",
        },
        {
            "type": "function_call",
            "call_id": "call_a",
            "name": "read",
            "arguments": '{"path": "a.txt"}',
        },
        {
            "type": "function_call",
            "call_id": "call_b",
            "name": "bash",
            "arguments": '{"command": "ls"}',
        },
        {"type": "function_call_output", "call_id": "call_a", "output": "out call_a"},
        {"type": "function_call_output", "call_id": "call_b", "output": "out call_b"},
    ]
    assert body["tools"][0] == {
        "type": "function",
        "name": "bash",
        "description": "Run a command",
        "parameters": {"type": "object", "properties": {"command": {"type": "string"}}},
        "strict": False,
    }


async def test_other_providers_history_is_sendable() -> None:
    """An Anthropic-signed thought becomes text; an Anthropic id is reshaped; images travel."""
    h = Harness("responses", "native")
    earlier = AssistantMessage(
        api="anthropic-messages",
        provider="anthropic",
        model="claude",
        content=[
            ThinkingContent(thinking="pondering", signature="anthropic-sig"),
            ThinkingContent(thinking="", signature="x", redacted=True),
            ToolCall(id="toolu_01A/B", name="read", arguments={"path": "p"}),
        ],
        stop_reason="toolUse",
    )
    result = ToolResultMessage(
        tool_call_id="toolu_01A/B",
        tool_name="read",
        content=[TextContent(text="see"), ImageContent(data="QUJD", mime_type="image/png")],
    )
    async with h.serve(Turn(text="ok")):
        await h.run(messages=[user_message("hi"), earlier, result])
        body = h.server.requests[0]  # type: ignore[union-attr]
    _, thought, call, output = body["input"]
    assert thought["content"][0]["text"] == "pondering" and thought["role"] == "assistant"
    assert call["call_id"] == output["call_id"] != "toolu_01A/B"
    assert output["output"] == [
        {"type": "input_text", "text": "see"},
        {"type": "input_image", "image_url": "data:image/png;base64,QUJD", "detail": "auto"},
    ]


# ---------------------------------------------------------------------------- what comes back


async def test_refusal_part() -> None:
    h = Harness("responses", "native")
    async with h.serve(Turn(refusal="I can't help with that.", chunk_size=4)):
        run = await h.run()
    assert run.final.stop_reason == "refusal"
    assert run.final.refusal == "I can't help with that." and run.final.text == ""


async def test_incomplete_is_length_and_keeps_text() -> None:
    h = Harness("responses", "native")
    async with h.serve(Turn(text="cut sho", stop_reason="length")):
        run = await h.run()
    assert run.final.stop_reason == "length" and run.final.text == "cut sho"


async def test_cached_tokens_are_split_from_input() -> None:
    from tests.fakes import UsageSpec

    h = Harness("responses", "native")
    async with h.serve(Turn(text="ok", usage=UsageSpec(input=100, output=7, cache_read=900))):
        run = await h.run()
    usage = run.final.usage
    assert (usage.input, usage.cache_read, usage.output, usage.total_tokens) == (100, 900, 7, 1007)


async def test_complete_json_body_instead_of_a_stream() -> None:
    body = {
        "id": "resp_1",
        "object": "response",
        "status": "completed",
        "output": [
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [{"type": "summary_text", "text": "hm"}],
                "encrypted_content": "E",
            },
            {
                "type": "message",
                "id": "m",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "whole"}],
            },
            {
                "type": "function_call",
                "id": "fc",
                "call_id": "call_w",
                "name": "read",
                "arguments": '{"path": "x"}',
            },
        ],
        "usage": {"input_tokens": 5, "output_tokens": 3},
    }
    h = Harness("responses", "native")
    async with h.serve(Turn(json_body=body)):
        run = await h.run()
    assert run.final.stop_reason == "toolUse", run.final.error_message
    assert run.final.text == "whole"
    assert [b.type for b in run.final.content] == ["thinking", "text", "toolCall"]
    assert run.final.tool_calls[0].arguments == {"path": "x"}


async def test_stream_without_terminal_event_is_an_error() -> None:
    h = Harness("responses", "native")
    async with h.serve(Turn(text="never finished", chunk_size=3, disconnect_after_chunks=4)):
        run = await h.run()
    assert run.final.stop_reason == "error"
    assert "closed" in (run.final.error_message or "") or "dropped" in (
        run.final.error_message or ""
    )


def _feed(events: list[dict[str, Any]]) -> AssistantMessage:
    acc = ResponsesAccumulator(_model())
    for event in events:
        acc.feed("", event)
    return acc.finish()[1]


def test_hostile_events_are_ignored_not_fatal() -> None:
    final = _feed(
        [
            {"type": "response.created", "response": "not an object"},
            {"type": "response.output_text.delta", "output_index": 0, "delta": 42},
            {"type": "response.output_item.added", "output_index": 1, "item": None},
            {"type": "response.function_call_arguments.delta", "output_index": 9, "delta": "{"},
            {"type": "response.output_item.done", "output_index": 5, "item": {"type": "weird"}},
            {"type": "response.output_text.delta", "item_id": "m", "delta": "text without index"},
            {"type": "response.output_item.done", "item": {"type": "message", "id": "m"}},
            {"type": "response.unknown_future_event", "whatever": True},
            {"type": "response.completed", "response": {"status": "completed", "usage": "bad"}},
        ]
    )
    assert final.stop_reason == "stop" and final.text == "text without index"


def test_a_second_response_spliced_in_is_an_error() -> None:
    acc = ResponsesAccumulator(_model())
    acc.feed("", {"type": "response.created", "response": {"id": "r1"}})
    with pytest.raises(ProviderError, match="second response"):
        acc.feed("", {"type": "response.created", "response": {"id": "r2"}})


def test_incomplete_for_an_unknown_reason_is_an_error() -> None:
    final = _feed(
        [
            {
                "type": "response.incomplete",
                "response": {
                    "status": "incomplete",
                    "incomplete_details": {"reason": "new_reason\nwith lines"},
                },
            }
        ]
    )
    assert final.stop_reason == "error" and "new_reason" in (final.error_message or "")
    assert "\n" not in (final.error_message or "")


def test_content_filter_is_a_refusal() -> None:
    final = _feed(
        [
            {
                "type": "response.incomplete",
                "response": {
                    "status": "incomplete",
                    "incomplete_details": {"reason": "content_filter"},
                },
            }
        ]
    )
    assert final.stop_reason == "refusal"


def test_failed_response_names_its_error() -> None:
    with pytest.raises(ProviderError, match="server_error") as caught:
        _feed(
            [
                {
                    "type": "response.failed",
                    "response": {
                        "status": "failed",
                        "error": {"code": "server_error", "message": "boom"},
                    },
                }
            ]
        )
    assert caught.value.retryable
