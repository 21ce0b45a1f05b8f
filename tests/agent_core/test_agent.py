"""The Agent API and the StreamFn contract: busy errors, continue_, listeners, error stops."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent_core import (
    Agent,
    AgentBusyError,
    AgentContext,
    AgentLoopConfig,
    AssistantMessage,
    TextDelta,
    TextStart,
    ToolResultMessage,
    UserMessage,
    run_agent_loop_continue,
    user_message,
)
from tests.agent_core.sample_tools import EchoTool
from tests.agent_core.scripted_stream import Recorder, ScriptedStream, reply, text, tool_call


async def test_prompt_while_streaming_raises_busy() -> None:
    stream = ScriptedStream(reply(text("x"), hang=True))
    agent = Agent(stream)
    task = asyncio.create_task(agent.prompt("first"))
    await asyncio.wait_for(stream.hanging.wait(), 2)
    with pytest.raises(AgentBusyError, match="steer"):
        await agent.prompt("second")
    with pytest.raises(AgentBusyError):
        await agent.continue_()
    agent.abort()
    await asyncio.wait_for(task, 2)
    # the busy prompt changed nothing
    assert [m.role for m in agent.state.messages] == ["user", "assistant"]
    assert agent.state.messages[0].text == "first"


async def test_prompt_variants_text_images_message_list() -> None:
    from agent_core import ImageContent

    stream = ScriptedStream(reply(text("1")), reply(text("2")), reply(text("3")))
    agent = Agent(stream)
    await agent.prompt("look", images=[ImageContent(data="AAAA", mime_type="image/png")])
    assert agent.state.messages[0].content[1].type == "image"
    await agent.prompt(UserMessage(content="as message"))
    await agent.prompt([user_message("a"), user_message("b")])
    assert stream.user_texts(2) == ["look", "as message", "a", "b"]


async def test_is_streaming_and_idle() -> None:
    stream = ScriptedStream(reply(text("x"), hang=True))
    agent = Agent(stream)
    assert agent.state.is_streaming is False
    await asyncio.wait_for(agent.wait_for_idle(), 1)
    task = asyncio.create_task(agent.prompt("hi"))
    await asyncio.wait_for(stream.hanging.wait(), 2)
    assert agent.state.is_streaming is True
    assert agent.signal is not None
    idle = asyncio.create_task(agent.wait_for_idle())
    await asyncio.sleep(0)
    assert not idle.done()
    agent.abort()
    await asyncio.wait_for(idle, 2)
    await task
    assert agent.state.is_streaming is False and agent.signal is None


async def test_continue_from_tool_result_runs_without_new_user_message() -> None:
    stream = ScriptedStream(reply(text("continued")))
    history = [
        user_message("do it"),
        AssistantMessage(content=[tool_call_block()], stop_reason="toolUse"),
        ToolResultMessage(tool_call_id="c1", tool_name="echo", content="x"),
    ]
    agent = Agent(stream, messages=history)
    rec = Recorder()
    agent.subscribe(rec)
    await agent.continue_()
    assert stream.roles(0) == ["user", "assistant", "toolResult"]
    assert rec.types() == [
        "agent_start", "turn_start", "message_start:assistant", "message_update", "message_update",
        "message_update", "message_end:assistant", "turn_end", "agent_end",
    ]  # fmt: skip
    assert [m.role for m in rec.events[-1].messages] == ["assistant"]
    assert len(agent.state.messages) == 4


def tool_call_block() -> Any:
    """A completed echo tool-call block."""
    from agent_core import ToolCall

    return ToolCall(id="c1", name="echo", arguments={"text": "x"})


async def test_continue_after_assistant_requires_queued_message() -> None:
    stream = ScriptedStream(reply(text("a")), reply(text("b")))
    agent = Agent(stream)
    await agent.prompt("hi")
    with pytest.raises(ValueError, match="assistant"):
        await agent.continue_()
    agent.follow_up("queued")
    rec = Recorder()
    agent.subscribe(rec)
    await agent.continue_()
    assert stream.user_texts(1) == ["hi", "queued"]
    assert rec.types()[:4] == [
        "agent_start",
        "turn_start",
        "message_start:user",
        "message_end:user",
    ]
    assert agent.state.follow_up_queue == []


async def test_continue_with_no_messages_raises() -> None:
    agent = Agent(ScriptedStream())
    with pytest.raises(ValueError):
        await agent.continue_()
    assert agent.state.is_streaming is False


async def test_run_agent_loop_continue_rejects_assistant_tail() -> None:
    context = AgentContext(messages=[user_message("x"), AssistantMessage()])
    with pytest.raises(ValueError):
        await run_agent_loop_continue(
            context, AgentLoopConfig(stream_fn=ScriptedStream()), lambda e: None
        )


async def test_raising_listener_does_not_kill_the_loop() -> None:
    stream = ScriptedStream(reply(tool_call("c1", "echo", {"text": "x"})), reply(text("done")))
    agent = Agent(stream, tools=[EchoTool()])
    calls = {"n": 0}

    def bad(event: Any) -> None:
        calls["n"] += 1
        raise RuntimeError(f"listener broke on {event.type}")

    rec = Recorder()
    agent.subscribe(bad)
    agent.subscribe(rec)
    await agent.prompt("go")
    assert rec.types()[-1] == "agent_end"
    assert calls["n"] == len(rec.events)  # called for every event, each time raising
    assert agent.state.messages[-1].text == "done"
    assert agent.state.error is None


async def test_unsubscribe() -> None:
    stream = ScriptedStream(reply(text("a")), reply(text("b")))
    agent = Agent(stream)
    rec = Recorder()
    unsubscribe = agent.subscribe(rec)
    await agent.prompt("1")
    n = len(rec.events)
    unsubscribe()
    unsubscribe()  # idempotent
    await agent.prompt("2")
    assert len(rec.events) == n


@pytest.mark.parametrize("stop", ["error", "aborted"])
async def test_error_stop_ends_run_without_running_tools(stop: str) -> None:
    echo = EchoTool()

    async def stream_fn(context: Any, options: Any) -> Any:
        yield TextStart(content_index=0)
        yield TextDelta(content_index=0, delta="partial")
        from agent_core import ToolCall

        yield AssistantMessage(
            content=[ToolCall(id="c1", name="echo", arguments={"text": "x"})],
            stop_reason=stop,
            error_message="rate limited",
        )

    agent = Agent(stream_fn, tools=[echo])
    rec = Recorder()
    agent.subscribe(rec)
    await agent.prompt("go")
    assert echo.calls == []
    assert rec.types()[-3:] == ["message_end:assistant", "turn_end", "agent_end"]
    assert "tool_execution_start" not in rec.types()
    assert rec.events[-2].tool_results == []
    assert rec.events[-2].message.stop_reason == stop
    assert agent.state.error == "rate limited"
    assert agent.state.is_streaming is False


async def test_error_stop_from_scripted_stream() -> None:
    stream = ScriptedStream(reply(text("half"), error="HTTP 500"), reply(text("unused")))
    agent = Agent(stream)
    rec = Recorder()
    agent.subscribe(rec)
    await agent.prompt("go")
    assert stream.calls == 1
    final = agent.state.messages[-1]
    assert (final.stop_reason, final.error_message, final.text) == ("error", "HTTP 500", "half")
    assert rec.wire[-2]["message"]["errorMessage"] == "HTTP 500"
    assert rec.wire[-2]["message"]["stopReason"] == "error"


async def test_stream_fn_that_raises_becomes_error_message() -> None:
    stream = ScriptedStream(reply(text("some"), raise_exc=ConnectionError("socket closed")))
    agent = Agent(stream)
    rec = Recorder()
    agent.subscribe(rec)
    await agent.prompt("go")
    final = agent.state.messages[-1]
    assert isinstance(final, AssistantMessage)
    assert final.stop_reason == "error"
    assert "socket closed" in (final.error_message or "")
    assert final.text == "some"
    assert rec.types()[-2:] == ["turn_end", "agent_end"]
    assert agent.state.is_streaming is False


async def test_stream_fn_that_raises_on_call_becomes_error_message() -> None:
    def stream_fn(context: Any, options: Any) -> Any:
        raise RuntimeError("no provider configured")

    agent = Agent(stream_fn)
    rec = Recorder()
    agent.subscribe(rec)
    await agent.prompt("go")
    assert agent.state.messages[-1].stop_reason == "error"
    assert "no provider configured" in agent.state.messages[-1].error_message
    assert rec.types()[-2:] == ["turn_end", "agent_end"]


async def test_stream_fn_without_final_message_becomes_error_message() -> None:
    stream = ScriptedStream(reply(text("dangling"), no_final=True))
    agent = Agent(stream)
    rec = Recorder()
    agent.subscribe(rec)
    await agent.prompt("go")
    final = agent.state.messages[-1]
    assert final.stop_reason == "error"
    assert "without a final message" in (final.error_message or "")
    assert final.text == "dangling"
    assert rec.types()[-2:] == ["turn_end", "agent_end"]


async def test_stream_options_and_model() -> None:
    stream = ScriptedStream(reply(text("x")))
    agent = Agent(stream, model="gpt-test", thinking="high", max_tokens=123)
    await agent.prompt("go")
    options = stream.options[0]
    assert (options.model, options.thinking, options.max_tokens) == ("gpt-test", "high", 123)
    assert options.cancel is not None and not options.cancel.aborted
    assert agent.state.messages[-1].model == "scripted-model"


async def test_transform_context_changes_what_the_model_sees_not_history() -> None:
    stream = ScriptedStream(reply(text("x")))

    async def transform(messages: list[Any], _signal: Any) -> list[Any]:
        return [user_message("summary"), *messages[-1:]]

    agent = Agent(
        stream, messages=[user_message("old"), AssistantMessage()], transform_context=transform
    )
    await agent.prompt("new")
    assert stream.user_texts(0) == ["summary", "new"]
    assert [m.role for m in agent.state.messages] == ["user", "assistant", "user", "assistant"]


async def test_reset_and_replace_messages() -> None:
    agent = Agent(ScriptedStream(reply(text("x"))))
    await agent.prompt("hi")
    agent.steer("s")
    agent.replace_messages([user_message("only")])
    assert len(agent.state.messages) == 1
    agent.reset()
    assert agent.state.messages == [] and agent.state.steering_queue == []
