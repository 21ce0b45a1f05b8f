"""Broken hooks, validators and loop bugs still end every run with a complete event sequence."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel, field_validator

from agent_core import AfterToolCallResult, Agent, ToolResult, ToolResultMessage
from agent_core.abort import AbortSignal
from tests.agent_core.sample_tools import EchoTool
from tests.agent_core.scripted_stream import Recorder, ScriptedStream, reply, text, tool_call

MODES = ["sequential", "parallel"]

# One tool call, its error-or-not result fed back, then a text answer.
FULL_ORDER = [
    "agent_start",
    "turn_start",
    "message_start:user",
    "message_end:user",
    "message_start:assistant",
    "message_update",
    "message_end:assistant",
    "tool_execution_start",
    "tool_execution_end",
    "message_start:toolResult",
    "message_end:toolResult",
    "turn_end",
    "turn_start",
    "message_start:assistant",
    "message_update",
    "message_end:assistant",
    "turn_end",
    "agent_end",
]


def collapsed(rec: Recorder) -> list[str]:
    """Event types with runs of message_update collapsed (chunking-independent)."""
    out: list[str] = []
    for name in rec.types():
        if name == "message_update" and out and out[-1] == name:
            continue
        out.append(name)
    return out


async def run_agent(agent: Agent) -> Recorder:
    rec = Recorder()
    agent.subscribe(rec)
    await asyncio.wait_for(agent.prompt("go"), 5)
    return rec


class PickyArgs(BaseModel):
    """A validator that raises something pydantic does not wrap."""

    text: str

    @field_validator("text")
    @classmethod
    def _explode(cls, value: str) -> str:
        raise KeyError("boom")


class PickyTool(EchoTool):
    """Echo with arguments whose validator raises KeyError."""

    parameters = PickyArgs  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__("picky")


@pytest.mark.parametrize("mode", MODES)
async def test_after_hook_with_bad_content_keeps_tool_result(mode: str) -> None:
    async def after(ctx: Any, signal: AbortSignal) -> AfterToolCallResult:
        return AfterToolCallResult(content=12345)  # not content blocks: ToolResult rejects it

    stream = ScriptedStream(reply(tool_call("c1", "echo", {"text": "hi"})), reply(text("done")))
    agent = Agent(stream, tools=[EchoTool()], tool_execution=mode, after_tool_call=after)  # type: ignore[arg-type]
    rec = await run_agent(agent)
    assert collapsed(rec) == FULL_ORDER
    (result,) = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert result.text == "hi" and not result.is_error
    assert agent.state.messages[-1].text == "done" and agent.state.error is None


@pytest.mark.parametrize("mode", MODES)
async def test_after_hook_returning_wrong_type_keeps_tool_result(mode: str) -> None:
    async def after(ctx: Any, signal: AbortSignal) -> Any:
        return ToolResult.of_text("not an AfterToolCallResult")

    stream = ScriptedStream(reply(tool_call("c1", "echo", {"text": "hi"})), reply(text("done")))
    agent = Agent(stream, tools=[EchoTool()], tool_execution=mode, after_tool_call=after)  # type: ignore[arg-type]
    rec = await run_agent(agent)
    assert collapsed(rec) == FULL_ORDER
    assert [m.text for m in agent.state.messages if isinstance(m, ToolResultMessage)] == ["hi"]


@pytest.mark.parametrize("mode", MODES)
async def test_validator_raising_generic_exception_is_an_error_result(mode: str) -> None:
    tool = PickyTool()
    stream = ScriptedStream(reply(tool_call("c1", "picky", {"text": "hi"})), reply(text("done")))
    agent = Agent(stream, tools=[tool], tool_execution=mode)  # type: ignore[arg-type]
    rec = await run_agent(agent)
    assert collapsed(rec) == FULL_ORDER
    (result,) = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert result.is_error and result.text == "Invalid arguments for tool picky: KeyError: 'boom'"
    assert tool.calls == [] and stream.calls == 2


async def test_loop_bug_ends_with_the_runs_messages() -> None:
    stream = ScriptedStream(reply(text("first")), reply(text("second")))
    agent = Agent(stream)
    await asyncio.wait_for(agent.prompt("one"), 5)  # earlier history, not part of the next run

    def broken() -> list[Any]:
        raise RuntimeError("queue exploded")

    agent._drain_follow_ups = broken  # type: ignore[method-assign]  # a bug inside the loop
    rec = Recorder()
    agent.subscribe(rec)
    await asyncio.wait_for(agent.prompt("two"), 5)
    (end,) = rec.of_type("agent_end")
    assert [(m.role, m.text) for m in end.messages] == [("user", "two"), ("assistant", "second")]
    assert rec.types()[0] == "agent_start" and rec.types()[-1] == "agent_end"
    assert agent.state.error == "RuntimeError: queue exploded"
    assert end.error_message == "RuntimeError: queue exploded"  # front ends read it from the event
    assert agent.state.is_streaming is False
