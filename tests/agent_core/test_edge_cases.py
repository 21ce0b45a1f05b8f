"""Edge cases: aborting from a listener (a UI's Esc), failing hooks around the model call."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent_core import Agent, AgentBusyError, AssistantMessage, ToolResultMessage
from agent_core.tool_execution import ABORTED
from tests.agent_core.sample_tools import EchoTool, ProgressTool, SlowTool
from tests.agent_core.scripted_stream import Recorder, ScriptedStream, reply, text, tool_call


def assert_balanced(rec: Recorder) -> None:
    """Every start has its end, and the run closes with turn_end, agent_end."""
    types = rec.types()
    assert types.count("turn_start") == types.count("turn_end")
    assert types.count("message_start:assistant") == types.count("message_end:assistant")
    assert types.count("tool_execution_start") == types.count("tool_execution_end")
    assert types[-2:] == ["turn_end", "agent_end"]
    assert types.count("agent_start") == types.count("agent_end") == 1


async def test_abort_from_listener_on_text_delta() -> None:
    """A UI pressing Esc while text streams: abort() runs inside the stream task."""
    stream = ScriptedStream(reply(text("a", "b", "c", "d")))
    agent = Agent(stream)
    rec = Recorder()
    agent.subscribe(rec)

    def on_event(event: Any) -> None:
        if event.type == "message_update" and event.assistant_message_event.type == "text_delta":
            if event.assistant_message_event.delta == "b":
                agent.abort()

    agent.subscribe(on_event)
    await asyncio.wait_for(agent.prompt("hi"), 2)
    assert_balanced(rec)
    final = agent.state.messages[-1]
    assert final.stop_reason == "aborted"
    assert final.text == "ab"
    assert agent.state.is_streaming is False


async def test_abort_from_listener_on_tool_execution_start() -> None:
    echo = EchoTool()
    stream = ScriptedStream(reply(tool_call("c1", "echo", {"text": "x"})), reply(text("unused")))
    agent = Agent(stream, tools=[echo], tool_execution="sequential")
    rec = Recorder()
    agent.subscribe(rec)
    agent.subscribe(lambda e: agent.abort() if e.type == "tool_execution_start" else None)
    await asyncio.wait_for(agent.prompt("hi"), 2)
    assert_balanced(rec)
    (result,) = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert result.is_error and result.text == ABORTED
    assert echo.calls == []
    assert stream.calls == 1


async def test_abort_from_tool_update_listener() -> None:
    stream = ScriptedStream(reply(tool_call("c1", "progress")), reply(text("unused")))
    agent = Agent(stream, tools=[ProgressTool()])
    rec = Recorder()
    agent.subscribe(rec)
    agent.subscribe(lambda e: agent.abort() if e.type == "tool_execution_update" else None)
    await asyncio.wait_for(agent.prompt("hi"), 2)
    assert_balanced(rec)
    assert len(rec.of_type("tool_execution_update")) == 1
    (result,) = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert result.is_error


async def test_failing_transform_context_ends_run_with_error_message() -> None:
    stream = ScriptedStream(reply(text("unused")))

    async def transform(messages: list[Any], _signal: Any) -> list[Any]:
        raise RuntimeError("compaction failed")

    agent = Agent(stream, transform_context=transform)
    rec = Recorder()
    agent.subscribe(rec)
    await asyncio.wait_for(agent.prompt("hi"), 2)
    assert_balanced(rec)
    final = agent.state.messages[-1]
    assert isinstance(final, AssistantMessage)
    assert final.stop_reason == "error"
    assert "compaction failed" in (final.error_message or "")
    assert rec.events[-1].messages[-1] == final
    assert stream.calls == 0
    assert agent.state.is_streaming is False


async def test_abort_during_transform_context() -> None:
    started = asyncio.Event()

    async def transform(messages: list[Any], _signal: Any) -> list[Any]:
        started.set()
        await asyncio.Event().wait()
        return messages

    stream = ScriptedStream(reply(text("unused")))
    agent = Agent(stream, transform_context=transform)
    rec = Recorder()
    agent.subscribe(rec)
    task = asyncio.create_task(agent.prompt("hi"))
    await asyncio.wait_for(started.wait(), 2)
    agent.abort()
    await asyncio.wait_for(task, 2)
    assert_balanced(rec)
    assert agent.state.messages[-1].stop_reason == "aborted"
    assert stream.calls == 0


async def test_steer_during_streaming_sequential_skips_after_first_call() -> None:
    """A steer typed while the model streamed a 2-call batch: call 1 runs, call 2 is skipped."""
    echo = EchoTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "echo", {"text": "a"}), tool_call("c2", "echo", {"text": "b"})),
        reply(text("ok")),
    )
    agent = Agent(stream, tools=[echo], tool_execution="sequential")
    stream.on_call = lambda i, _c: agent.steer("wait") if i == 0 else None
    await agent.prompt("go")
    results = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert [(r.tool_call_id, r.is_error) for r in results] == [("c1", False), ("c2", True)]
    assert stream.user_texts(1) == ["go", "wait"]


async def test_concurrent_prompts_second_is_busy() -> None:
    stream = ScriptedStream(reply(text("x"), hang=True))
    agent = Agent(stream)
    first = asyncio.create_task(agent.prompt("one"))
    second = asyncio.create_task(agent.prompt("two"))
    with pytest.raises(AgentBusyError):
        await asyncio.wait_for(second, 2)
    await asyncio.wait_for(stream.hanging.wait(), 2)
    agent.abort()
    await asyncio.wait_for(first, 2)
    assert [m.text for m in agent.state.messages if m.role == "user"] == ["one"]


async def test_messages_have_millisecond_timestamps() -> None:
    stream = ScriptedStream(reply(tool_call("c1", "echo", {"text": "x"})), reply(text("ok")))
    agent = Agent(stream, tools=[EchoTool()])
    await agent.prompt("go")
    stamps = [m.timestamp for m in agent.state.messages]
    assert all(s > 1_600_000_000_000 for s in stamps)
    assert stamps == sorted(stamps)


async def test_slow_tool_released_normally() -> None:
    slow = SlowTool()
    stream = ScriptedStream(reply(tool_call("c1", "slow")), reply(text("ok")))
    agent = Agent(stream, tools=[slow])
    task = asyncio.create_task(agent.prompt("go"))
    await asyncio.wait_for(slow.started.wait(), 2)
    assert agent.state.pending_tool_calls == {"c1"}
    slow.release.set()
    await asyncio.wait_for(task, 2)
    assert agent.state.pending_tool_calls == set()
    assert not slow.cancelled
