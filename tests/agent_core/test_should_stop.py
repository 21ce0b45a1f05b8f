"""``should_stop``: a budget ends the run cleanly before the next model call."""

from __future__ import annotations

from typing import Any

from agent_core import Agent, AgentEnd, TurnStart, UserMessage
from tests.agent_core.sample_tools import EchoTool
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call


def _looping_stream(calls: int) -> ScriptedStream:
    """A model that keeps calling the echo tool ``calls`` times, then answers."""
    responses = [reply(tool_call(f"c{i}", "echo", {"text": str(i)})) for i in range(calls)]
    return ScriptedStream(*responses, reply(text("done")))


async def test_the_run_ends_before_the_turn_the_budget_forbids() -> None:
    stream = _looping_stream(5)
    agent = Agent(stream, tools=[EchoTool()])
    turns = 0
    events: list[Any] = []

    def listen(event: Any) -> None:
        nonlocal turns
        events.append(event)
        if isinstance(event, TurnStart):
            turns += 1

    agent.subscribe(listen)
    agent.should_stop = lambda: turns >= 2
    await agent.prompt("go")
    assert stream.calls == 2  # no third model call
    kinds = [type(e).__name__ for e in events]
    assert kinds.count("TurnStart") == kinds.count("TurnEnd") == 2
    assert isinstance(events[-1], AgentEnd)
    # The history ends with the last tool result: a valid context for the next prompt.
    assert agent.state.messages[-1].role == "toolResult"
    assert not agent.state.is_streaming


async def test_follow_ups_are_not_drained_once_stopped() -> None:
    stream = ScriptedStream(reply(text("first")), reply(text("second")))
    agent = Agent(stream)
    agent.follow_up("later")
    agent.should_stop = lambda: True
    await agent.prompt("go")
    assert stream.calls == 1  # the first turn always runs; the follow-up waits in the queue
    assert [m.text for m in agent.state.follow_up_queue if isinstance(m, UserMessage)] == ["later"]


async def test_steers_taken_by_the_last_batch_join_the_history() -> None:
    stream = ScriptedStream(
        reply(tool_call("c1", "echo", {"text": "a"}), tool_call("c2", "echo", {"text": "b"})),
        reply(text("never")),
    )
    agent = Agent(stream, tools=[EchoTool()], tool_execution="sequential")

    def steer_while_the_batch_runs(event: Any) -> None:
        if type(event).__name__ == "ToolExecutionEnd" and event.tool_call_id == "c1":
            agent.steer("typed meanwhile")  # drained by the batch: c2 is skipped

    agent.subscribe(steer_while_the_batch_runs)
    agent.should_stop = lambda: True
    await agent.prompt("go")
    assert stream.calls == 1
    assert agent.state.messages[-1].role == "user"
    assert isinstance(agent.state.messages[-1], UserMessage)
    assert agent.state.messages[-1].text == "typed meanwhile"
    assert not agent.state.steering_queue


async def test_a_raising_check_stops_the_run() -> None:
    stream = _looping_stream(3)
    agent = Agent(stream, tools=[EchoTool()])

    def broken() -> bool:
        raise RuntimeError("budget store gone")

    agent.should_stop = broken
    await agent.prompt("go")
    assert stream.calls == 1
