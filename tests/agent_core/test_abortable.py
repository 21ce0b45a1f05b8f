"""run_abortable, and Esc reaching a slow before_tool_call hook."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent_core import Agent, ToolResultMessage
from agent_core.abort import Aborted, AbortSignal, run_abortable
from agent_core.tool_execution import ABORTED, SKIPPED_FOR_ABORT
from tests.agent_core.sample_tools import EchoTool
from tests.agent_core.scripted_stream import Recorder, ScriptedStream, reply, text, tool_call

MODES = ["sequential", "parallel"]


async def test_run_abortable_returns_the_result() -> None:
    async def work() -> int:
        await asyncio.sleep(0)
        return 7

    assert await run_abortable(work(), AbortSignal()) == 7


async def test_run_abortable_raises_aborted_and_cancels_the_work() -> None:
    signal = AbortSignal()
    cancelled = asyncio.Event()

    async def work() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    task = asyncio.ensure_future(run_abortable(work(), signal))
    await asyncio.sleep(0.01)
    signal.abort("esc")
    with pytest.raises(Aborted):
        await asyncio.wait_for(task, 1)
    assert cancelled.is_set()


async def test_run_abortable_with_signal_already_aborted_never_runs_the_work() -> None:
    signal = AbortSignal()
    signal.abort()
    ran = False

    async def work() -> None:
        nonlocal ran
        ran = True

    with pytest.raises(Aborted):
        await run_abortable(work(), signal)
    assert not ran


async def test_run_abortable_propagates_the_callers_own_cancellation() -> None:
    signal = AbortSignal()
    task = asyncio.ensure_future(run_abortable(asyncio.sleep(30), signal))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not signal.aborted


async def test_run_abortable_keeps_other_errors() -> None:
    async def work() -> None:
        raise ValueError("nope")

    with pytest.raises(ValueError, match="nope"):
        await run_abortable(work(), AbortSignal())


@pytest.mark.parametrize("mode", MODES)
async def test_abort_reaches_a_slow_before_hook(mode: str) -> None:
    started = asyncio.Event()
    hook_cancelled = asyncio.Event()

    async def before(ctx: Any, signal: AbortSignal) -> None:
        started.set()
        try:
            await asyncio.sleep(30)  # e.g. waiting for the user to approve
        except asyncio.CancelledError:
            hook_cancelled.set()
            raise

    echo = EchoTool()
    calls = reply(tool_call("c1", "echo", {"text": "a"}), tool_call("c2", "echo", {"text": "b"}))
    stream = ScriptedStream(calls, reply(text("unused")))
    agent = Agent(stream, tools=[echo], tool_execution=mode, before_tool_call=before)  # type: ignore[arg-type]
    rec = Recorder()
    agent.subscribe(rec)
    run = asyncio.create_task(agent.prompt("go"))
    await asyncio.wait_for(started.wait(), 2)
    agent.abort()
    await asyncio.wait_for(run, 2)

    assert hook_cancelled.is_set() and echo.calls == []
    results = [m for m in agent.state.messages if isinstance(m, ToolResultMessage)]
    assert [(r.tool_call_id, r.text, r.is_error) for r in results] == [
        ("c1", ABORTED, True),
        ("c2", SKIPPED_FOR_ABORT, True),
    ]
    types = rec.types()
    assert types.count("tool_execution_start") == types.count("tool_execution_end") == 2
    assert types[-2:] == ["turn_end", "agent_end"] and types.count("turn_start") == types.count(
        "turn_end"
    )
    assert agent.state.messages[-1].stop_reason == "aborted"
