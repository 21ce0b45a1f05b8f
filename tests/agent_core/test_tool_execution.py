"""Tool execution: errors fed back, validation, terminate, hooks, updates, parallel mode."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent_core import (
    AfterToolCallContext,
    AfterToolCallResult,
    Agent,
    BeforeToolCallResult,
    ToolCallContext,
    ToolResultMessage,
)
from tests.agent_core.sample_tools import (
    EchoArgs,
    EchoTool,
    FailingTool,
    ProgressTool,
    TerminateTool,
    rendezvous_pair,
)
from tests.agent_core.scripted_stream import (
    Recorder,
    ScriptedStream,
    raw_tool_call,
    reply,
    text,
    tool_call,
)

MODES = ["sequential", "parallel"]


def results_of(agent: Agent) -> list[ToolResultMessage]:
    """Every tool result in the agent's history."""
    return [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]


async def run_one_call(
    call: Any, tools: list[Any], mode: str = "parallel", **agent_kwargs: Any
) -> tuple[Agent, ScriptedStream, Recorder]:
    """Run a prompt where the model makes ``call`` and then answers with text."""
    stream = ScriptedStream(reply(call), reply(text("understood")))
    agent = Agent(stream, tools=tools, tool_execution=mode, **agent_kwargs)  # type: ignore[arg-type]
    rec = Recorder()
    agent.subscribe(rec)
    await asyncio.wait_for(agent.prompt("go"), 5)
    return agent, stream, rec


def assert_error_fed_back(
    agent: Agent, stream: ScriptedStream, rec: Recorder, needle: str
) -> ToolResultMessage:
    """One error result containing ``needle``, seen by the model's next call; the loop went on."""
    (result,) = results_of(agent)
    assert result.is_error is True
    assert needle in result.text
    assert stream.calls == 2
    assert stream.roles(1) == ["user", "assistant", "toolResult"]
    assert stream.contexts[1].messages[-1] == result
    end = rec.of_type("tool_execution_end")[0]
    assert end.is_error is True and needle in end.result.text
    assert agent.state.messages[-1].text == "understood"
    assert rec.of_type("turn_end")[0].tool_results == [result]
    return result


@pytest.mark.parametrize("mode", MODES)
async def test_unknown_tool(mode: str) -> None:
    agent, stream, rec = await run_one_call(tool_call("c1", "nope", {"x": 1}), [EchoTool()], mode)
    result = assert_error_fed_back(agent, stream, rec, "Tool nope not found")
    assert result.text == "Tool nope not found. Available tools: echo."
    assert (result.tool_call_id, result.tool_name) == ("c1", "nope")
    # the call still has a start event carrying the model's arguments
    start = rec.of_type("tool_execution_start")[0]
    assert (start.tool_call_id, start.tool_name, start.args) == ("c1", "nope", {"x": 1})


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ({"times": 2}, "text: required field missing"),
        ({"text": "hi", "times": "many"}, "times: Expected `int`, got `str`"),
        ({"times": "many"}, "times: Expected `int`, got `str`"),  # the first problem found
    ],
)
async def test_invalid_arguments_name_the_field(
    mode: str, arguments: dict[str, Any], problem: str
) -> None:
    echo = EchoTool()
    agent, stream, rec = await run_one_call(tool_call("c1", "echo", arguments), [echo], mode)
    result = assert_error_fed_back(agent, stream, rec, "Invalid arguments for tool echo")
    assert result.text == f"Invalid arguments for tool echo: {problem}"
    assert echo.calls == []


@pytest.mark.parametrize("mode", MODES)
async def test_invalid_json_arguments(mode: str) -> None:
    echo = EchoTool()
    call = raw_tool_call("c1", "echo", '{"text": "unterminated', ", ")
    agent, stream, rec = await run_one_call(call, [echo], mode)
    result = assert_error_fed_back(agent, stream, rec, "Invalid JSON")
    assert "unterminated" in result.text
    assistant = agent.state.messages[1]
    assert assistant.tool_calls[0].raw_arguments == '{"text": "unterminated, '
    assert assistant.tool_calls[0].arguments == {}
    assert echo.calls == []


async def test_non_object_json_arguments_are_invalid() -> None:
    agent, stream, rec = await run_one_call(raw_tool_call("c1", "echo", "[1, 2]"), [EchoTool()])
    assert_error_fed_back(agent, stream, rec, "Invalid JSON")


async def test_split_json_arguments_are_joined() -> None:
    echo = EchoTool()
    agent, _, _ = await run_one_call(
        tool_call("c1", "echo", {"text": "hey", "times": 2}, split=7), [echo]
    )
    assert [(c.text, c.times) for c in echo.calls] == [("hey", 2)]
    assert results_of(agent)[0].text == "heyhey"
    assert results_of(agent)[0].details == {"id": "c1"}


@pytest.mark.parametrize("mode", MODES)
async def test_tool_error_becomes_clean_error_result(mode: str) -> None:
    agent, stream, rec = await run_one_call(tool_call("c1", "fail"), [FailingTool()], mode)
    result = assert_error_fed_back(agent, stream, rec, "disk is on fire")
    assert result.text == "disk is on fire"


@pytest.mark.parametrize("mode", MODES)
async def test_generic_exception_becomes_error_result(mode: str) -> None:
    tool = FailingTool(exc=ValueError("bad value"))
    agent, stream, rec = await run_one_call(tool_call("c1", "fail"), [tool], mode)
    result = assert_error_fed_back(agent, stream, rec, "bad value")
    assert "ValueError" in result.text


@pytest.mark.parametrize("mode", MODES)
async def test_all_results_terminate_stops_the_loop(mode: str) -> None:
    stream = ScriptedStream(
        reply(tool_call("c1", "done"), tool_call("c2", "done")), reply(text("unused"))
    )
    agent = Agent(stream, tools=[TerminateTool()], tool_execution=mode)  # type: ignore[arg-type]
    rec = Recorder()
    agent.subscribe(rec)
    await agent.prompt("go")
    assert stream.calls == 1
    assert rec.types()[-2:] == ["turn_end", "agent_end"]
    assert rec.types().count("turn_start") == 1
    assert [r.text for r in results_of(agent)] == ["finished", "finished"]
    assert [m.role for m in rec.events[-1].messages] == [
        "user",
        "assistant",
        "toolResult",
        "toolResult",
    ]


@pytest.mark.parametrize("mode", MODES)
async def test_mixed_terminate_continues(mode: str) -> None:
    stream = ScriptedStream(
        reply(tool_call("c1", "done"), tool_call("c2", "echo", {"text": "x"})),
        reply(text("continued")),
    )
    agent = Agent(stream, tools=[TerminateTool(), EchoTool()], tool_execution=mode)  # type: ignore[arg-type]
    await agent.prompt("go")
    assert stream.calls == 2
    assert agent.state.messages[-1].text == "continued"


async def test_terminate_with_error_result_continues() -> None:
    stream = ScriptedStream(
        reply(tool_call("c1", "done"), tool_call("c2", "nope")), reply(text("continued"))
    )
    agent = Agent(stream, tools=[TerminateTool()])
    await agent.prompt("go")
    assert stream.calls == 2


async def test_terminate_still_delivers_follow_ups() -> None:
    stream = ScriptedStream(reply(tool_call("c1", "done")), reply(text("follow-up answer")))
    agent = Agent(stream, tools=[TerminateTool()])
    agent.follow_up("next")
    await agent.prompt("go")
    assert stream.calls == 2
    assert stream.user_texts(1) == ["go", "next"]


# ---------------------------------------------------------------------------- hooks


@pytest.mark.parametrize("mode", MODES)
async def test_before_hook_blocks_with_reason(mode: str) -> None:
    echo = EchoTool()
    seen: list[ToolCallContext] = []

    async def before(ctx: ToolCallContext, _signal: Any) -> BeforeToolCallResult:
        seen.append(ctx)
        return BeforeToolCallResult(block=True, reason="not allowed in plan mode")

    agent, stream, rec = await run_one_call(
        tool_call("c1", "echo", {"text": "x"}), [echo], mode, before_tool_call=before
    )
    result = assert_error_fed_back(agent, stream, rec, "not allowed in plan mode")
    assert echo.calls == []
    assert result.text == "not allowed in plan mode"
    assert isinstance(seen[0].args, EchoArgs) and seen[0].args.text == "x"
    assert seen[0].tool_call.id == "c1"
    assert seen[0].assistant_message.tool_calls[0].id == "c1"
    assert seen[0].messages[0].role == "user"


async def test_before_hook_rewrites_arguments() -> None:
    echo = EchoTool()

    async def before(ctx: ToolCallContext, _signal: Any) -> BeforeToolCallResult:
        return BeforeToolCallResult(arguments={"text": "rewritten", "times": 2})

    agent, _, _ = await run_one_call(
        tool_call("c1", "echo", {"text": "orig"}), [echo], before_tool_call=before
    )
    assert [(c.text, c.times) for c in echo.calls] == [("rewritten", 2)]
    assert results_of(agent)[0].text == "rewrittenrewritten"


async def test_before_hook_rewrite_is_validated() -> None:
    echo = EchoTool()

    async def before(ctx: ToolCallContext, _signal: Any) -> BeforeToolCallResult:
        return BeforeToolCallResult(arguments={"times": 2})

    agent, stream, rec = await run_one_call(
        tool_call("c1", "echo", {"text": "o"}), [echo], before_tool_call=before
    )
    assert_error_fed_back(agent, stream, rec, "text")
    assert echo.calls == []


@pytest.mark.parametrize("mode", MODES)
async def test_raising_before_hook_blocks(mode: str) -> None:
    echo = EchoTool()

    async def before(ctx: ToolCallContext, _signal: Any) -> None:
        raise RuntimeError("hook exploded")

    agent, stream, rec = await run_one_call(
        tool_call("c1", "echo", {"text": "x"}), [echo], mode, before_tool_call=before
    )
    assert_error_fed_back(agent, stream, rec, "hook exploded")
    assert echo.calls == []


async def test_before_hook_returning_none_allows() -> None:
    echo = EchoTool()

    async def before(ctx: ToolCallContext, _signal: Any) -> None:
        return None

    agent, _, _ = await run_one_call(
        tool_call("c1", "echo", {"text": "x"}), [echo], before_tool_call=before
    )
    assert results_of(agent)[0].text == "x" and not results_of(agent)[0].is_error


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        (AfterToolCallResult(), ("x", {"id": "c1"}, False)),
        (AfterToolCallResult(content="redacted"), ("redacted", {"id": "c1"}, False)),
        (AfterToolCallResult(details={"new": 1}), ("x", {"new": 1}, False)),
        (AfterToolCallResult(is_error=True), ("x", {"id": "c1"}, True)),
        (AfterToolCallResult(details=None), ("x", None, False)),
        (None, ("x", {"id": "c1"}, False)),
    ],
)
async def test_after_hook_overrides_field_by_field(
    override: Any, expected: tuple[str, Any, bool]
) -> None:
    seen: list[AfterToolCallContext] = []

    async def after(ctx: AfterToolCallContext, _signal: Any) -> Any:
        seen.append(ctx)
        return override

    agent, _, rec = await run_one_call(
        tool_call("c1", "echo", {"text": "x"}), [EchoTool()], after_tool_call=after
    )
    (result,) = results_of(agent)
    assert (result.text, result.details, result.is_error) == expected
    end = rec.of_type("tool_execution_end")[0]
    assert (end.result.text, end.result.details, end.is_error) == expected
    assert seen[0].result.text == "x" and seen[0].is_error is False
    assert seen[0].args.text == "x"


async def test_after_hook_sees_errors_and_can_clear_them() -> None:
    async def after(ctx: AfterToolCallContext, _signal: Any) -> AfterToolCallResult:
        assert ctx.is_error and ctx.result.text == "disk is on fire"
        return AfterToolCallResult(content="recovered", is_error=False)

    agent, _, _ = await run_one_call(
        tool_call("c1", "fail"), [FailingTool()], after_tool_call=after
    )
    (result,) = results_of(agent)
    assert (result.text, result.is_error) == ("recovered", False)


@pytest.mark.parametrize("mode", MODES)
async def test_raising_after_hook_keeps_result(mode: str) -> None:
    async def after(ctx: AfterToolCallContext, _signal: Any) -> None:
        raise RuntimeError("after exploded")

    agent, stream, _ = await run_one_call(
        tool_call("c1", "echo", {"text": "x"}), [EchoTool()], mode, after_tool_call=after
    )
    (result,) = results_of(agent)
    assert (result.text, result.is_error) == ("x", False)
    assert stream.calls == 2


# ---------------------------------------------------------------------------- updates, parallel


@pytest.mark.parametrize("mode", MODES)
async def test_tool_execution_update_events(mode: str) -> None:
    agent, _, rec = await run_one_call(tool_call("c1", "progress"), [ProgressTool()], mode)
    types = [t for t in rec.types() if t.startswith("tool_execution")]
    assert types == [
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_update",
        "tool_execution_end",
    ]
    updates = rec.of_type("tool_execution_update")
    assert [u.partial_result.text for u in updates] == ["a", "ab"]
    assert updates[1].partial_result.details == {"lines": 2}
    assert all((u.tool_call_id, u.tool_name, u.args) == ("c1", "progress", {}) for u in updates)
    wire = [w for w in rec.wire if w["type"] == "tool_execution_update"][1]
    assert wire["partialResult"]["content"] == [{"type": "text", "text": "ab"}]
    assert wire["toolCallId"] == "c1"
    assert results_of(agent)[0].text == "abc"


async def test_parallel_runs_tools_concurrently_and_keeps_model_order() -> None:
    # meet_a finishes after meet_b, but results must follow the model's order a, b
    a, b, finish_order = rendezvous_pair(first_yields=5)
    stream = ScriptedStream(
        reply(tool_call("c1", "meet_a"), tool_call("c2", "meet_b")), reply(text("ok"))
    )
    agent = Agent(stream, tools=[a, b], tool_execution="parallel")
    rec = Recorder()
    agent.subscribe(rec)
    await asyncio.wait_for(agent.prompt("go"), 5)

    results = results_of(agent)
    assert [(r.tool_call_id, r.is_error, r.text) for r in results] == [
        ("c1", False, "meet_a met meet_b"),
        ("c2", False, "meet_b met meet_a"),
    ]
    assert finish_order == ["meet_b", "meet_a"]  # really finished out of order
    tool_events = [
        (e.type, e.tool_call_id) for e in rec.events if e.type.startswith("tool_execution")
    ]
    # Each call ends when it has (a front end stops its spinner and times it on its own) ...
    assert tool_events == [
        ("tool_execution_start", "c1"),
        ("tool_execution_start", "c2"),
        ("tool_execution_end", "c2"),
        ("tool_execution_end", "c1"),
    ]
    # ... and the results still reach the context in the model's order.
    result_ids = [
        e.message.tool_call_id for e in rec.of_type("message_end") if e.message.role == "toolResult"
    ]
    assert result_ids == ["c1", "c2"]


async def test_sequential_runs_tools_one_after_another() -> None:
    """The same rendezvous cannot complete sequentially: the first tool times out waiting."""
    a, b, _ = rendezvous_pair()
    a.timeout = 0.05
    stream = ScriptedStream(
        reply(tool_call("c1", "meet_a"), tool_call("c2", "meet_b")), reply(text("ok"))
    )
    agent = Agent(stream, tools=[a, b], tool_execution="sequential")
    await asyncio.wait_for(agent.prompt("go"), 5)
    results = results_of(agent)
    assert results[0].is_error and "partner never arrived" in results[0].text
    assert not results[1].is_error


async def test_parallel_validates_in_order_with_mixed_outcomes() -> None:
    echo = EchoTool()
    stream = ScriptedStream(
        reply(
            tool_call("c1", "echo", {"text": "a"}),
            tool_call("c2", "nope"),
            raw_tool_call("c3", "echo", "{bad"),
            tool_call("c4", "echo", {"text": "d"}),
        ),
        reply(text("ok")),
    )
    agent = Agent(stream, tools=[echo], tool_execution="parallel")
    await agent.prompt("go")
    assert [(r.tool_call_id, r.is_error) for r in results_of(agent)] == [
        ("c1", False),
        ("c2", True),
        ("c3", True),
        ("c4", False),
    ]
    assert [c.text for c in echo.calls] == ["a", "d"]
    assert stream.roles(1) == [
        "user",
        "assistant",
        "toolResult",
        "toolResult",
        "toolResult",
        "toolResult",
    ]


async def test_tool_calls_trusted_from_content_not_stop_reason() -> None:
    """stop_reason says stop but the content has a tool call: the tool runs anyway."""
    echo = EchoTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "echo", {"text": "x"}), stop_reason="stop"), reply(text("ok"))
    )
    agent = Agent(stream, tools=[echo])
    await agent.prompt("go")
    assert len(echo.calls) == 1
    assert stream.calls == 2


async def test_tool_use_stop_reason_without_tool_calls_ends_the_run() -> None:
    stream = ScriptedStream(reply(text("no tools after all"), stop_reason="toolUse"))
    agent = Agent(stream, tools=[EchoTool()])
    await agent.prompt("go")
    assert stream.calls == 1
    assert not stream.exhausted
