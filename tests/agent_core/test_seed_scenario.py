"""The seed scenario (SPEC §1, §4): 4 turns, 3 tool executions, the exact event sequence."""

from __future__ import annotations

import json

from agent_core import (
    Agent,
    AgentContext,
    AgentLoopConfig,
    AssistantMessage,
    ToolResultMessage,
    UserMessage,
    run_agent_loop,
    user_message,
)
from tests.agent_core.sample_tools import CommandArgs, PathArgs, StaticTool
from tests.agent_core.scripted_stream import (
    Recorder,
    ScriptedStream,
    reply,
    text,
    thinking,
    tool_call,
)

PROMPT = "List files in the current directory, then tell me what this project is."
PACKAGE_JSON = json.dumps({"name": "hello", "main": "hello.mjs"})


def seed_tools() -> tuple[StaticTool, StaticTool]:
    """Fake bash and read tools answering the seed scenario."""
    bash = StaticTool("bash", CommandArgs, {"ls -la": "package.json\nhello.mjs\n"})
    read = StaticTool(
        "read",
        PathArgs,
        {"package.json": PACKAGE_JSON, "hello.mjs": "console.log('hello')\n"},
    )
    return bash, read


def seed_stream() -> ScriptedStream:
    """The model side of the seed scenario: three tool-using turns, then a text answer."""
    return ScriptedStream(
        reply(text("Let me look."), tool_call("call_1", "bash", {"command": "ls -la"}, split=3)),
        reply(
            thinking("need the manifest"),
            tool_call("call_2", "read", {"path": "package.json"}, split=2),
        ),
        reply(tool_call("call_3", "read", {"path": "hello.mjs"})),
        reply(text("This is a tiny ", "Node.js hello-world project.")),
    )


def expected_turn(tool: bool, updates: int) -> list[str]:
    """Event types of one turn (without its turn_start)."""
    events = ["message_start:assistant", *["message_update"] * updates, "message_end:assistant"]
    if tool:
        events += [
            "tool_execution_start",
            "tool_execution_end",
            "message_start:toolResult",
            "message_end:toolResult",
        ]
    return [*events, "turn_end"]


async def test_seed_scenario_exact_event_sequence() -> None:
    bash, read = seed_tools()
    stream = seed_stream()
    agent = Agent(stream, model="m", tools=[bash, read])
    rec = Recorder()
    agent.subscribe(rec)

    await agent.prompt(PROMPT)

    # turn 1: text (start, delta, end) + tool call (start, 3 deltas, end) = 8 updates
    # turn 2: thinking (3) + tool call (start, 2 deltas, end) = 7; turn 3: 1 delta -> 3
    # turn 4: text start, 2 deltas, end = 4
    expected = [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
        *expected_turn(True, 8),
        "turn_start",
        *expected_turn(True, 7),
        "turn_start",
        *expected_turn(True, 3),
        "turn_start",
        *expected_turn(False, 4),
        "agent_end",
    ]
    assert rec.types() == expected

    assert rec.types().count("turn_start") == 4
    assert rec.types().count("tool_execution_start") == 3
    # never two turn_starts without a turn_end between them
    open_turns = 0
    for name in rec.types():
        if name == "turn_start":
            assert open_turns == 0
            open_turns += 1
        elif name == "turn_end":
            assert open_turns == 1
            open_turns -= 1
    assert open_turns == 0

    turn_ends = rec.of_type("turn_end")
    assert [len(t.tool_results) for t in turn_ends] == [1, 1, 1, 0]
    assert turn_ends[-1].tool_results == []
    assert rec.wire[-2]["toolResults"] == []
    assert [t.message.stop_reason for t in turn_ends] == ["toolUse", "toolUse", "toolUse", "stop"]

    agent_end = rec.events[-1]
    roles = [m.role for m in agent_end.messages]
    assert roles == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "toolResult",
        "assistant",
        "toolResult",
        "assistant",
    ]
    assert agent_end.messages == agent.state.messages
    assert isinstance(agent_end.messages[0], UserMessage)
    assert agent_end.messages[0].text == PROMPT
    results = [m for m in agent_end.messages if isinstance(m, ToolResultMessage)]
    assert [(r.tool_call_id, r.tool_name, r.is_error) for r in results] == [
        ("call_1", "bash", False),
        ("call_2", "read", False),
        ("call_3", "read", False),
    ]
    assert results[1].text == PACKAGE_JSON
    final = agent_end.messages[-1]
    assert isinstance(final, AssistantMessage)
    assert final.text == "This is a tiny Node.js hello-world project."
    assert final.tool_calls == []

    # tools got their validated arguments
    assert bash.seen == ["ls -la"]
    assert read.seen == ["package.json", "hello.mjs"]
    assert agent.state.is_streaming is False
    assert agent.state.pending_tool_calls == set()


async def test_seed_scenario_event_payloads() -> None:
    bash, read = seed_tools()
    agent = Agent(seed_stream(), tools=[bash, read])
    rec = Recorder()
    agent.subscribe(rec)
    await agent.prompt(PROMPT)

    # user message arrives whole: start then end, same content, no update in between
    assert rec.wire[2]["message"] == rec.wire[3]["message"]
    assert rec.wire[2]["message"]["content"] == [{"type": "text", "text": PROMPT}]
    assert isinstance(rec.wire[2]["message"]["timestamp"], int)

    # every message_update is assistant-only and carries the sub-event
    for wire in rec.wire:
        if wire["type"] == "message_update":
            assert wire["message"]["role"] == "assistant"
            assert wire["assistantMessageEvent"]["type"] in {
                "text_start", "text_delta", "text_end",
                "thinking_start", "thinking_delta", "thinking_end",
                "toolcall_start", "toolcall_delta", "toolcall_end",
            }  # fmt: skip

    # the partial message grows: the toolcall_delta pieces join to the full JSON
    deltas = [
        w["assistantMessageEvent"]["delta"]
        for w in rec.wire[:20]
        if w["type"] == "message_update" and w["assistantMessageEvent"]["type"] == "toolcall_delta"
    ]
    assert json.loads("".join(deltas)) == {"command": "ls -la"}
    end = next(
        w
        for w in rec.wire
        if w["type"] == "message_update" and w["assistantMessageEvent"]["type"] == "toolcall_end"
    )
    assert end["assistantMessageEvent"]["toolCall"] == {
        "type": "toolCall", "id": "call_1", "name": "bash", "arguments": {"command": "ls -la"},
    }  # fmt: skip

    starts = [w for w in rec.wire if w["type"] == "tool_execution_start"]
    assert starts[0] == {
        "type": "tool_execution_start", "toolCallId": "call_1", "toolName": "bash",
        "args": {"command": "ls -la"},
    }  # fmt: skip
    ends = [w for w in rec.wire if w["type"] == "tool_execution_end"]
    assert ends[1]["toolCallId"] == "call_2"
    assert ends[1]["isError"] is False
    assert ends[1]["result"]["content"] == [{"type": "text", "text": PACKAGE_JSON}]

    # turn_end carries the assistant message of its turn and the results of that turn
    turn_end_1 = next(w for w in rec.wire if w["type"] == "turn_end")
    assert turn_end_1["message"]["stopReason"] == "toolUse"
    assert turn_end_1["message"]["content"][1]["id"] == "call_1"
    assert [r["toolCallId"] for r in turn_end_1["toolResults"]] == ["call_1"]

    # thinking content is kept in the message
    second = rec.of_type("turn_end")[1].message
    assert second.content[0].type == "thinking"
    assert second.content[0].thinking == "need the manifest"


async def test_seed_scenario_model_sees_growing_context() -> None:
    bash, read = seed_tools()
    stream = seed_stream()
    agent = Agent(stream, system_prompt="SYS", tools=[bash, read])
    await agent.prompt(PROMPT)

    assert stream.calls == 4
    assert not stream.exhausted
    assert stream.roles(0) == ["user"]
    assert stream.roles(1) == ["user", "assistant", "toolResult"]
    assert (
        stream.roles(3) == ["user", "assistant", "toolResult"] * 1 + ["assistant", "toolResult"] * 2
    )
    assert all(c.system_prompt == "SYS" for c in stream.contexts)
    # the model sees each tool's JSON schema
    specs = {s.name: s for s in stream.contexts[0].tools}
    assert set(specs) == {"bash", "read"}
    assert specs["read"].parameters["properties"]["path"]["type"] == "string"
    assert specs["read"].parameters["required"] == ["path"]


async def test_run_agent_loop_directly_returns_new_messages() -> None:
    bash, read = seed_tools()
    context = AgentContext(system_prompt="", messages=[], tools=[bash, read])
    rec = Recorder()
    config = AgentLoopConfig(stream_fn=seed_stream(), tool_execution="sequential")
    new = await run_agent_loop([user_message(PROMPT)], context, config, rec)
    assert [m.role for m in new] == ["user", "assistant", "toolResult"] * 1 + [
        "assistant",
        "toolResult",
    ] * 2 + ["assistant"]
    assert new == context.messages
    assert rec.events[-1].messages == new
    assert rec.types().count("turn_start") == 4
