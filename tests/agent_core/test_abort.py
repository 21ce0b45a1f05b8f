"""Abort: during streaming, during a slow tool, and by cancelling the awaiting task."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent_core import Agent, AssistantMessage, ToolResultMessage
from agent_core.tool_execution import ABORTED, SKIPPED_FOR_ABORT
from tests.agent_core.sample_tools import EchoTool, SlowTool
from tests.agent_core.scripted_stream import Recorder, ScriptedStream, reply, text, tool_call


def assert_clean_end(rec: Recorder) -> None:
    """The run ended with turn_end then agent_end, the last assistant message aborted."""
    types = rec.types()
    assert types[-3:] == ["message_end:assistant", "turn_end", "agent_end"]
    assert types.count("agent_end") == 1
    assert types.count("turn_start") == types.count("turn_end")
    assert rec.events[-2].message.stop_reason == "aborted"
    assert rec.events[-2].tool_results == []


async def test_abort_during_streaming_keeps_partial_text() -> None:
    stream = ScriptedStream(reply(text("Hello ", "wor", "ld"), hang=True, hang_after=3))
    agent = Agent(stream)
    rec = Recorder()
    agent.subscribe(rec)
    task = asyncio.create_task(agent.prompt("hi"))
    await asyncio.wait_for(stream.hanging.wait(), 2)
    assert agent.state.is_streaming is True
    assert agent.state.stream_message is not None
    assert agent.state.stream_message.text == "Hello wor"
    agent.abort()
    await asyncio.wait_for(task, 2)

    assert_clean_end(rec)
    final = rec.events[-1].messages[-1]
    assert isinstance(final, AssistantMessage)
    assert final.stop_reason == "aborted"
    assert final.text == "Hello wor"
    assert final.error_message
    assert agent.state.is_streaming is False
    assert agent.state.stream_message is None
    assert agent.state.messages[-1] is final
    assert [m.role for m in agent.state.messages] == ["user", "assistant"]
    # the agent is usable again
    stream.responses.append(reply(text("again")))
    await agent.prompt("retry")
    assert agent.state.messages[-1].text == "again"


async def test_abort_before_first_event() -> None:
    stream = ScriptedStream(reply(text("never"), hang=True, hang_after=0))
    agent = Agent(stream)
    rec = Recorder()
    agent.subscribe(rec)
    task = asyncio.create_task(agent.prompt("hi"))
    await asyncio.wait_for(stream.hanging.wait(), 2)
    agent.abort()
    await asyncio.wait_for(task, 2)
    assert_clean_end(rec)
    assert rec.events[-1].messages[-1].content == []
    assert "message_update" not in rec.types()


@pytest.mark.parametrize("mode", ["sequential", "parallel"])
async def test_abort_during_slow_tool(mode: str) -> None:
    slow = SlowTool()
    echo = EchoTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "slow"), tool_call("c2", "echo", {"text": "x"})),
        reply(text("should not be called")),
    )
    agent = Agent(stream, tools=[slow, echo], tool_execution=mode)  # type: ignore[arg-type]
    rec = Recorder()
    agent.subscribe(rec)
    task = asyncio.create_task(agent.prompt("go"))
    await asyncio.wait_for(slow.started.wait(), 2)
    agent.abort()
    await asyncio.wait_for(task, 2)

    assert slow.cancelled is True
    results = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert results[0].tool_call_id == "c1"
    assert results[0].is_error is True
    assert results[0].text == ABORTED
    assert len(results) == 2
    if mode == "sequential":
        assert results[1].text == SKIPPED_FOR_ABORT and results[1].is_error
        assert echo.calls == []
    # no further model call: the run ends with an aborted assistant message
    assert stream.calls == 1
    assert_clean_end(rec)
    assert isinstance(agent.state.messages[-1], AssistantMessage)
    assert agent.state.messages[-1].stop_reason == "aborted"
    assert agent.state.is_streaming is False
    assert agent.state.pending_tool_calls == set()


async def test_abort_skips_follow_ups() -> None:
    stream = ScriptedStream(reply(text("x"), hang=True), reply(text("follow-up answer")))
    agent = Agent(stream)
    agent.follow_up("later")
    task = asyncio.create_task(agent.prompt("hi"))
    await asyncio.wait_for(stream.hanging.wait(), 2)
    agent.abort()
    await asyncio.wait_for(task, 2)
    assert stream.calls == 1
    # the follow-up is still queued for the user to deliver or clear
    assert [m.text for m in agent.state.follow_up_queue] == ["later"]


async def test_cancelling_the_prompt_task_ends_the_run_cleanly() -> None:
    stream = ScriptedStream(reply(text("partial"), hang=True))
    agent = Agent(stream)
    rec = Recorder()
    agent.subscribe(rec)
    task = asyncio.create_task(agent.prompt("hi"))
    await asyncio.wait_for(stream.hanging.wait(), 2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 2)
    assert_clean_end(rec)
    assert rec.events[-1].messages[-1].text == "partial"
    assert agent.state.is_streaming is False
    await asyncio.wait_for(agent.wait_for_idle(), 1)
    # usable again
    stream.responses.append(reply(text("ok")))
    await agent.prompt("again")
    assert agent.state.messages[-1].text == "ok"


async def test_cancelling_the_prompt_task_during_a_tool() -> None:
    slow = SlowTool()
    stream = ScriptedStream(reply(tool_call("c1", "slow")), reply(text("unused")))
    agent = Agent(stream, tools=[slow])
    rec = Recorder()
    agent.subscribe(rec)
    task = asyncio.create_task(agent.prompt("hi"))
    await asyncio.wait_for(slow.started.wait(), 2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 2)
    assert slow.cancelled
    assert_clean_end(rec)
    assert agent.state.is_streaming is False


async def test_abort_when_idle_is_a_no_op() -> None:
    agent = Agent(ScriptedStream(reply(text("x"))))
    agent.abort()
    await agent.prompt("hi")
    assert agent.state.messages[-1].stop_reason == "stop"


async def test_stream_that_honours_cancel_itself() -> None:
    """A StreamFn that notices the signal and returns its own aborted message is fine too."""

    async def stream_fn(context: Any, options: Any) -> Any:
        yield text_start()
        options.cancel.abort()  # e.g. the provider aborts on its own
        await asyncio.sleep(0)
        yield AssistantMessage(stop_reason="aborted", error_message="provider aborted")

    def text_start() -> Any:
        from agent_core import TextStart

        return TextStart(content_index=0)

    agent = Agent(stream_fn)
    rec = Recorder()
    agent.subscribe(rec)
    await asyncio.wait_for(agent.prompt("hi"), 2)
    assert rec.events[-2].message.stop_reason == "aborted"
    assert rec.types()[-1] == "agent_end"


@pytest.mark.parametrize("mode", ["sequential", "parallel"])
async def test_abort_leaves_queued_steering_in_the_queue(mode: str) -> None:
    """After an abort no queued message is consumed: the UI can restore it (clear_queues)."""
    slow = SlowTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "slow"), tool_call("c2", "slow")), reply(text("unused"))
    )
    agent = Agent(stream, tools=[slow], tool_execution=mode)  # type: ignore[arg-type]
    rec = Recorder()
    agent.subscribe(rec)
    task = asyncio.create_task(agent.prompt("go"))
    await asyncio.wait_for(slow.started.wait(), 2)
    agent.steer("actually, do something else")
    agent.abort()
    await asyncio.wait_for(task, 2)
    assert_clean_end(rec)
    assert [m.role for m in agent.state.messages if m.role == "user"] == ["user"]
    steering, _ = agent.clear_queues()
    assert [m.text for m in steering] == ["actually, do something else"]
