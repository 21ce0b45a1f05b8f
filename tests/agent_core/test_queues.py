"""Steering and follow-up queues (SPEC §3 "Two queues") and queue delivery modes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent_core import SKIPPED_FOR_STEERING, Agent, ToolResultMessage
from tests.agent_core.sample_tools import EchoTool, SlowTool
from tests.agent_core.scripted_stream import Recorder, ScriptedStream, reply, text, tool_call


def echo_call(call_id: str, value: str) -> Any:
    """A scripted echo tool call."""
    return tool_call(call_id, "echo", {"text": value})


class SteeringEcho(EchoTool):
    """An echo tool that steers the agent during its first execution."""

    def __init__(self, agent_ref: list[Agent], steer: list[str]) -> None:
        super().__init__()
        self.agent_ref = agent_ref
        self.steer_texts = steer

    async def execute(
        self, tool_call_id: str, args: Any, cancel: Any, on_update: Any = None
    ) -> Any:
        """Echo, queueing the steering messages on the first call."""
        if not self.calls:
            for item in self.steer_texts:
                self.agent_ref[0].steer(item)
        return await super().execute(tool_call_id, args, cancel, on_update)


async def test_steering_typed_during_streaming_arrives_at_next_turn() -> None:
    stream = ScriptedStream(
        reply(echo_call("c1", "x")),
        reply(text("ok")),
        reply(text("after steer")),
    )
    agent = Agent(stream, tools=[EchoTool()])
    stream.on_call = lambda i, _ctx: agent.steer("go left") if i == 0 else None
    rec = Recorder()
    agent.subscribe(rec)
    await agent.prompt("start")

    # call 0 did not see the steer, call 1 did, as the last message (after the tool result)
    assert stream.user_texts(0) == ["start"]
    assert stream.roles(1) == ["user", "assistant", "toolResult", "user"]
    assert stream.user_texts(1) == ["start", "go left"]
    assert stream.calls == 2
    # the steer was injected right after turn_start of turn 2, as message_start/end
    types = rec.types()
    second = [i for i, t in enumerate(types) if t == "turn_start"][1]
    assert types[second : second + 4] == [
        "turn_start", "message_start:user", "message_end:user", "message_start:assistant",
    ]  # fmt: skip
    assert agent.state.steering_queue == []
    assert [m.role for m in rec.events[-1].messages] == [
        "user",
        "assistant",
        "toolResult",
        "user",
        "assistant",
    ]


async def test_steering_on_final_turn_forces_another_turn() -> None:
    """A steer that arrives while the model answers without tools is still delivered."""
    stream = ScriptedStream(reply(text("done?")), reply(text("now really done")))
    agent = Agent(stream)
    stream.on_call = lambda i, _ctx: agent.steer("one more thing") if i == 0 else None
    rec = Recorder()
    agent.subscribe(rec)
    await agent.prompt("hi")
    assert stream.calls == 2
    assert stream.user_texts(1) == ["hi", "one more thing"]
    assert rec.types().count("turn_start") == 2
    assert [len(e.tool_results) for e in rec.of_type("turn_end")] == [0, 0]


async def test_steering_queued_before_prompt_is_delivered_with_first_turn() -> None:
    stream = ScriptedStream(reply(text("a")))
    agent = Agent(stream)
    agent.steer("early")
    rec = Recorder()
    agent.subscribe(rec)
    await agent.prompt("hi")
    assert stream.user_texts(0) == ["hi", "early"]
    assert rec.types()[:6] == [
        "agent_start", "turn_start", "message_start:user", "message_end:user",
        "message_start:user", "message_end:user",
    ]  # fmt: skip
    assert rec.types().count("turn_start") == 1


@pytest.mark.parametrize("mode", ["sequential", "parallel"])
async def test_steering_mid_batch_skips_remaining_calls(mode: str) -> None:
    agent_ref: list[Agent] = []
    tool = SteeringEcho(agent_ref, ["stop that"])
    stream = ScriptedStream(
        reply(echo_call("c1", "one"), echo_call("c2", "two"), echo_call("c3", "three")),
        reply(text("ok, stopping")),
    )
    agent = Agent(stream, tools=[tool], tool_execution=mode)  # type: ignore[arg-type]
    agent_ref.append(agent)
    if mode == "parallel":
        # parallel: steering is noticed during preflight, so steer from the before hook of c1
        tool.steer_texts = []

        async def before(ctx: Any, _signal: Any) -> None:
            if ctx.tool_call.id == "c1":
                agent.steer("stop that")

        agent.before_tool_call = before
    rec = Recorder()
    agent.subscribe(rec)
    await agent.prompt("do three things")

    results = [m for m in rec.events[-1].messages if isinstance(m, ToolResultMessage)]
    assert [(r.tool_call_id, r.is_error, r.text) for r in results] == [
        ("c1", False, "one"),
        ("c2", True, SKIPPED_FOR_STEERING),
        ("c3", True, SKIPPED_FOR_STEERING),
    ]
    assert [c.text for c in tool.calls] == ["one"]
    # every skipped call still gets start/end events and a toolResult message, in order
    ends = rec.of_type("tool_execution_end")
    assert [(e.tool_call_id, e.is_error) for e in ends] == [
        ("c1", False),
        ("c2", True),
        ("c3", True),
    ]
    assert len(rec.of_type("tool_execution_start")) == 3
    if mode == "sequential":
        types = rec.types()
        first_end = types.index("turn_end")
        assert types[types.index("tool_execution_start") : first_end + 1] == [
            "tool_execution_start", "tool_execution_end", "message_start:toolResult", "message_end:toolResult",
        ] * 3 + ["turn_end"]  # fmt: skip
    # the steer is delivered at the start of the next turn, after all three results
    assert stream.roles(1) == [
        "user",
        "assistant",
        "toolResult",
        "toolResult",
        "toolResult",
        "user",
    ]
    assert stream.user_texts(1)[-1] == "stop that"
    turn_end = rec.of_type("turn_end")[0]
    assert [r.tool_call_id for r in turn_end.tool_results] == ["c1", "c2", "c3"]


async def test_parallel_steering_after_tools_started_lets_them_finish() -> None:
    """Parallel mode: once every call has started, a steer does not cancel them."""
    slow = SlowTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "slow"), echo_call("c2", "two")),
        reply(text("ok")),
    )
    agent = Agent(stream, tools=[slow, EchoTool()], tool_execution="parallel")
    task = asyncio.create_task(agent.prompt("go"))
    await asyncio.wait_for(slow.started.wait(), 2)
    agent.steer("hurry")
    slow.release.set()
    await asyncio.wait_for(task, 2)
    results = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert [(r.tool_call_id, r.is_error, r.text) for r in results] == [
        ("c1", False, "released"),
        ("c2", False, "two"),
    ]
    assert stream.user_texts(1) == ["go", "hurry"]


async def test_steering_one_at_a_time_delivers_one_per_turn() -> None:
    stream = ScriptedStream(reply(text("a")), reply(text("b")), reply(text("c")))
    agent = Agent(stream)  # default steering_mode one-at-a-time

    def on_call(i: int, _ctx: Any) -> None:
        if i == 0:
            agent.steer("s1")
            agent.steer("s2")

    stream.on_call = on_call
    await agent.prompt("p")
    assert stream.calls == 3
    assert stream.user_texts(1) == ["p", "s1"]
    assert stream.user_texts(2) == ["p", "s1", "s2"]
    assert stream.roles(2) == ["user", "assistant", "user", "assistant", "user"]


async def test_steering_all_mode_delivers_everything_at_once() -> None:
    stream = ScriptedStream(reply(text("a")), reply(text("b")))
    agent = Agent(stream, steering_mode="all")

    def on_call(i: int, _ctx: Any) -> None:
        if i == 0:
            agent.steer("s1")
            agent.steer("s2")

    stream.on_call = on_call
    await agent.prompt("p")
    assert stream.calls == 2
    assert stream.roles(1) == ["user", "assistant", "user", "user"]
    assert stream.user_texts(1) == ["p", "s1", "s2"]


async def test_two_steers_mid_batch_one_at_a_time_still_one_per_turn() -> None:
    """A steer drained mid-batch counts as this turn's delivery: no second drain after it."""
    agent_ref: list[Agent] = []
    tool = SteeringEcho(agent_ref, ["s1", "s2"])
    stream = ScriptedStream(
        reply(echo_call("c1", "one"), echo_call("c2", "two")),
        reply(text("b")),
        reply(text("c")),
    )
    agent = Agent(stream, tools=[tool], tool_execution="sequential")
    agent_ref.append(agent)
    await agent.prompt("p")
    assert stream.calls == 3
    assert stream.user_texts(1) == ["p", "s1"]
    assert stream.user_texts(2) == ["p", "s1", "s2"]


async def test_follow_up_waits_until_agent_would_stop() -> None:
    stream = ScriptedStream(
        reply(echo_call("c1", "x")),
        reply(text("first answer")),
        reply(text("follow-up answer")),
    )
    agent = Agent(stream, tools=[EchoTool()])
    stream.on_call = lambda i, _ctx: agent.follow_up("and then?") if i == 0 else None
    rec = Recorder()
    agent.subscribe(rec)
    await agent.prompt("start")

    # not injected into turn 2 (the tool turn's continuation) but after the final answer
    assert stream.user_texts(1) == ["start"]
    assert stream.roles(2) == ["user", "assistant", "toolResult", "assistant", "user"]
    assert stream.user_texts(2)[-1] == "and then?"
    assert stream.calls == 3
    types = rec.types()
    assert types.count("agent_start") == 1 and types.count("agent_end") == 1
    assert types.count("turn_start") == 3
    # the follow-up opens a new turn: turn_end, turn_start, user message, assistant
    i = types.index("message_start:user", 3)
    assert types[i - 2 : i + 3] == [
        "turn_end", "turn_start", "message_start:user", "message_end:user", "message_start:assistant",
    ]  # fmt: skip
    assert [m.role for m in rec.events[-1].messages] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "user",
        "assistant",
    ]
    assert agent.state.follow_up_queue == []


async def test_steering_wins_over_follow_up() -> None:
    stream = ScriptedStream(reply(text("a")), reply(text("b")), reply(text("c")))
    agent = Agent(stream)

    def on_call(i: int, _ctx: Any) -> None:
        if i == 0:
            agent.follow_up("later")
            agent.steer("now")

    stream.on_call = on_call
    await agent.prompt("p")
    assert stream.user_texts(1) == ["p", "now"]
    assert stream.user_texts(2) == ["p", "now", "later"]


@pytest.mark.parametrize(("mode", "expected_calls"), [("one-at-a-time", 3), ("all", 2)])
async def test_follow_up_modes(mode: str, expected_calls: int) -> None:
    stream = ScriptedStream(reply(text("a")), reply(text("b")), reply(text("c")))
    agent = Agent(stream, follow_up_mode=mode)  # type: ignore[arg-type]

    def on_call(i: int, _ctx: Any) -> None:
        if i == 0:
            agent.follow_up("f1")
            agent.follow_up("f2")

    stream.on_call = on_call
    await agent.prompt("p")
    assert stream.calls == expected_calls
    assert not stream.exhausted
    if mode == "all":
        assert stream.roles(1) == ["user", "assistant", "user", "user"]
    else:
        assert stream.roles(1) == ["user", "assistant", "user"]
        assert stream.roles(2) == ["user", "assistant", "user", "assistant", "user"]
    assert stream.user_texts(expected_calls - 1)[-2:] == ["f1", "f2"]


async def test_clear_queues_returns_what_was_queued() -> None:
    agent = Agent(ScriptedStream())
    agent.steer("s")
    agent.follow_up("f")
    assert [len(agent.state.steering_queue), len(agent.state.follow_up_queue)] == [1, 1]
    steering, follow = agent.clear_queues()
    assert [m.text for m in steering] == ["s"]
    assert [m.text for m in follow] == ["f"]
    assert agent.state.steering_queue == [] and agent.state.follow_up_queue == []


async def test_continue_with_queued_steering_delivers_one_at_a_time() -> None:
    stream = ScriptedStream(reply(text("a")), reply(text("b")), reply(text("c")))
    agent = Agent(stream)
    await agent.prompt("p")
    agent.steer("s1")
    agent.steer("s2")
    await agent.continue_()
    assert stream.calls == 3
    assert stream.user_texts(1) == ["p", "s1"]
    assert stream.user_texts(2) == ["p", "s1", "s2"]


async def test_continue_with_queued_steering_all_mode() -> None:
    stream = ScriptedStream(reply(text("a")), reply(text("b")))
    agent = Agent(stream, steering_mode="all")
    await agent.prompt("p")
    agent.steer("s1")
    agent.steer("s2")
    await agent.continue_()
    assert stream.calls == 2
    assert stream.user_texts(1) == ["p", "s1", "s2"]


async def test_an_outside_queue_is_drained_instead_of_the_agents_own() -> None:
    """A shell that owns its queue hands the agent drain functions; the loop asks them."""
    from agent_core import user_message

    outside = [user_message("from outside")]
    stream = ScriptedStream(reply(text("first")), reply(text("second")))
    agent = Agent(
        stream,
        get_steering_messages=lambda: [outside.pop(0)] if outside else [],
        get_follow_up_messages=lambda: [],
    )
    await asyncio.wait_for(agent.prompt("hi"), 5)
    assert [(m.role, m.text) for m in agent.state.messages] == [
        ("user", "hi"),
        ("user", "from outside"),
        ("assistant", "first"),
    ]
    assert stream.calls == 1
