"""JSON round trip of every message and event type, with the camelCase wire keys."""

from __future__ import annotations

import json
from typing import Any, get_args

import pytest

from agent_core import (
    AgentEnd,
    AgentEvent,
    AgentStart,
    AssistantMessage,
    AssistantStreamEvent,
    Cost,
    ImageContent,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    RecordError,
    TextContent,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingContent,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCall,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
    ToolResult,
    ToolResultMessage,
    TurnEnd,
    TurnStart,
    Usage,
    UserMessage,
    event_from_wire,
    message_from_wire,
    stream_event_from_wire,
    to_wire,
)
from tests.agent_core.sample_tools import EchoTool
from tests.agent_core.scripted_stream import (
    Recorder,
    ScriptedStream,
    reply,
    text,
    thinking,
    tool_call,
)

USER = UserMessage(
    content=[TextContent(text="look"), ImageContent(data="iVBORw0KGgo=", mime_type="image/png")],
    timestamp=1773576000000,
)
ASSISTANT = AssistantMessage(
    content=[
        ThinkingContent(thinking="hmm", signature="sig=="),
        ThinkingContent(thinking="", redacted=True),
        TextContent(text="Reading."),
        ToolCall(
            id="toolu_01", name="read", arguments={"path": "config.json", "n": [1, {"a": None}]}
        ),
        ToolCall(id="toolu_02", name="read", raw_arguments='{"path": '),
    ],
    api="anthropic-messages",
    provider="anthropic",
    model="claude-sonnet-4-5",
    usage=Usage(
        input=10,
        output=20,
        cache_read=3,
        cache_write=4,
        total_tokens=37,
        cost=Cost(input=0.1, output=0.2, cache_read=0.01, cache_write=0.02, total=0.33),
    ),
    stop_reason="toolUse",
    timestamp=1773576000100,
)
ERRORED = AssistantMessage(
    content=[], stop_reason="error", error_message="HTTP 529 overloaded", timestamp=5
)
TOOL_RESULT = ToolResultMessage(
    tool_call_id="toolu_01",
    tool_name="read",
    content=[TextContent(text='{"port": 8080}'), ImageContent(data="AA==", mime_type="image/jpeg")],
    details={"truncation": {"lines": 3}, "fullOutputPath": "/tmp/x"},
    is_error=True,
    timestamp=1773576001200,
)
RESULT = ToolResult(content=[TextContent(text="partial")], details={"k": [1, 2]}, terminate=True)

MESSAGES = [USER, ASSISTANT, ERRORED, TOOL_RESULT]

STREAM_EVENTS = [
    TextStart(content_index=0),
    TextDelta(content_index=0, delta="Hel"),
    TextEnd(content_index=0, content="Hello"),
    ThinkingStart(content_index=1),
    ThinkingDelta(content_index=1, delta="th"),
    ThinkingEnd(content_index=1, content="think", signature="s"),
    ToolCallStart(content_index=2, id="toolu_01", name="read"),
    ToolCallDelta(content_index=2, delta='{"path"'),
    ToolCallEnd(
        content_index=2, tool_call=ToolCall(id="toolu_01", name="read", arguments={"path": "a"})
    ),
]

EVENTS = [
    AgentStart(),
    AgentEnd(messages=MESSAGES),
    TurnStart(),
    TurnEnd(message=ASSISTANT, tool_results=[TOOL_RESULT]),
    TurnEnd(message=ERRORED, tool_results=[]),
    *[MessageStart(message=m) for m in MESSAGES],
    *[MessageEnd(message=m) for m in MESSAGES],
    *[MessageUpdate(message=ASSISTANT, assistant_message_event=e) for e in STREAM_EVENTS],
    MessageUpdate(assistant_message_event=TextDelta(content_index=0, delta="x")),
    ToolExecutionStart(tool_call_id="toolu_01", tool_name="read", args={"path": "a"}),
    ToolExecutionUpdate(
        tool_call_id="toolu_01", tool_name="read", args={"path": "a"}, partial_result=RESULT
    ),
    ToolExecutionEnd(tool_call_id="toolu_01", tool_name="read", result=RESULT, is_error=True),
]


def through_json(model: Any) -> dict[str, Any]:
    """``to_wire`` then a real JSON string and back."""
    return json.loads(json.dumps(to_wire(model)))


def all_keys(value: Any) -> set[str]:
    """Every dict key anywhere in a JSON value."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in all_keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in all_keys(v)}
    return set()


def test_every_event_type_is_covered() -> None:
    union = get_args(AgentEvent)
    assert {cls.__name__ for cls in union} == {type(e).__name__ for e in EVENTS}
    assert len(union) == 10
    stream_union = get_args(AssistantStreamEvent)
    assert {cls.__name__ for cls in stream_union} == {type(e).__name__ for e in STREAM_EVENTS}


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: m.role)
def test_message_round_trip(message: Any) -> None:
    wire = through_json(message)
    back = message_from_wire(wire)
    assert type(back) is type(message)
    assert back == message
    assert to_wire(back) == wire


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: e.type)
def test_event_round_trip(event: Any) -> None:
    wire = through_json(event)
    assert wire["type"] == event.type
    back = event_from_wire(wire)
    assert type(back) is type(event)
    assert back == event
    assert to_wire(back) == wire
    assert not any("_" in key for key in all_keys(wire) if key not in _FREE_FORM_KEYS)


# keys inside free-form payloads (tool args / details) are the caller's, not ours
_FREE_FORM_KEYS = {"path", "n", "a", "k"}


@pytest.mark.parametrize("event", STREAM_EVENTS, ids=lambda e: e.type)
def test_stream_event_round_trip(event: Any) -> None:
    wire = through_json(event)
    assert "contentIndex" in wire
    back = stream_event_from_wire(wire)
    assert back == event


def test_camel_case_wire_keys() -> None:
    assistant = to_wire(ASSISTANT)
    assert assistant["stopReason"] == "toolUse"
    assert assistant["usage"]["cacheRead"] == 3
    assert assistant["usage"]["cacheWrite"] == 4
    assert assistant["usage"]["totalTokens"] == 37
    assert assistant["usage"]["cost"]["cacheWrite"] == 0.02
    assert assistant["content"][3] == {
        "type": "toolCall", "id": "toolu_01", "name": "read",
        "arguments": {"path": "config.json", "n": [1, {"a": None}]},
    }  # fmt: skip
    assert assistant["content"][4]["rawArguments"] == '{"path": '
    assert to_wire(ERRORED)["errorMessage"] == "HTTP 529 overloaded"
    assert to_wire(USER)["content"][1] == {
        "type": "image",
        "data": "iVBORw0KGgo=",
        "mimeType": "image/png",
    }
    result = to_wire(TOOL_RESULT)
    assert {"toolCallId", "toolName", "isError"} <= set(result)
    assert result["role"] == "toolResult"
    assert result["details"]["fullOutputPath"] == "/tmp/x"

    turn_end = to_wire(TurnEnd(message=ASSISTANT, tool_results=[TOOL_RESULT]))
    assert set(turn_end) == {"type", "message", "toolResults"}
    update = to_wire(EVENTS[-2])
    assert set(update) == {"type", "toolCallId", "toolName", "args", "partialResult"}
    end = to_wire(EVENTS[-1])
    assert set(end) == {"type", "toolCallId", "toolName", "result", "isError"}
    msg_update = to_wire(MessageUpdate(message=ASSISTANT, assistant_message_event=STREAM_EVENTS[0]))
    assert set(msg_update) == {"type", "message", "assistantMessageEvent"}
    assert msg_update["assistantMessageEvent"] == {"type": "text_start", "contentIndex": 0}
    tool_end = to_wire(MessageUpdate(assistant_message_event=STREAM_EVENTS[-1]))
    assert tool_end["assistantMessageEvent"]["toolCall"]["id"] == "toolu_01"


def test_snake_case_keys_are_not_the_wire() -> None:
    """The wire is camelCase: a snake_case key is an unknown one, and the error names the
    camelCase field that is missing."""
    with pytest.raises(RecordError, match="toolCallId"):
        message_from_wire(
            {"role": "toolResult", "tool_call_id": "c", "tool_name": "t", "content": "plain"}
        )


def test_damaged_messages_raise_one_clear_error() -> None:
    cases: list[Any] = [
        {"role": "nobody", "content": []},
        {"content": []},
        {"role": "user", "content": 5},
        {"role": "user", "content": [{"type": "video", "data": "x"}]},
        {"role": "assistant", "content": [{"type": "toolCall", "id": 1, "name": "x"}]},
        {"role": "assistant", "stopReason": "exploded"},
        {"role": "toolResult", "toolCallId": "c", "toolName": "t", "isError": "maybe"},
        [],
        "text",
        None,
    ]
    for data in cases:
        with pytest.raises(RecordError) as caught:
            message_from_wire(data)
        assert "\n" not in str(caught.value) and str(caught.value)


def test_plain_string_content_is_one_text_block() -> None:
    message = message_from_wire(
        {"role": "toolResult", "toolCallId": "c", "toolName": "t", "content": "plain"}
    )
    assert isinstance(message, ToolResultMessage)
    assert (message.tool_call_id, message.text) == ("c", "plain")


def test_anchor_example_lines_parse() -> None:
    """Lines shaped like pi's JSON mode parse into our events."""
    lines = [
        '{"type":"agent_start"}',
        '{"type":"message_start","message":{"role":"user","content":[{"type":"text","text":"What port?"}],"timestamp":1773576000000}}',
        '{"type":"message_update","message":{"role":"assistant","content":[],"stopReason":"stop","timestamp":1},'
        '"assistantMessageEvent":{"type":"toolcall_delta","contentIndex":0,"delta":"{\\"path\\":\\"config.json\\"}"}}',
        '{"type":"tool_execution_end","toolCallId":"toolu_01","toolName":"read","result":{"content":[{"type":"text","text":"{\\"port\\": 8080}"}]},"isError":false}',
        '{"type":"turn_end","message":{"role":"assistant","content":[{"type":"text","text":"8080"}],"stopReason":"stop","timestamp":2},"toolResults":[]}',
    ]
    events = [event_from_wire(json.loads(line)) for line in lines]
    assert [e.type for e in events] == [
        "agent_start",
        "message_start",
        "message_update",
        "tool_execution_end",
        "turn_end",
    ]
    assert events[3].result.text == '{"port": 8080}'
    assert events[2].assistant_message_event.delta == '{"path":"config.json"}'


async def test_every_event_of_a_real_run_round_trips() -> None:
    stream = ScriptedStream(
        reply(
            thinking("t"),
            text("a"),
            tool_call("c1", "echo", {"text": "x"}),
            tool_call("c2", "nope"),
        ),
        reply(text("done")),
    )
    agent = Agent_with([EchoTool()], stream)
    rec = Recorder()
    agent.subscribe(rec)
    await agent.prompt("go")
    assert len(rec.wire) > 20
    for wire in rec.wire:
        line = json.dumps(wire)
        back = event_from_wire(json.loads(line))
        assert to_wire(back) == wire


def Agent_with(tools: list[Any], stream: ScriptedStream) -> Any:  # reads like a constructor
    """An agent with tools and a scripted stream."""
    from agent_core import Agent

    return Agent(stream, tools=tools)
