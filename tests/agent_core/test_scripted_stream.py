"""The scripted StreamFn itself: it honours ``options.cancel`` and per-chunk delays."""

from __future__ import annotations

import asyncio
from typing import Any

from agent_core import AbortSignal, AssistantMessage, LlmContext, StreamOptions, user_message
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call


async def collect(stream: ScriptedStream, cancel: AbortSignal) -> list[Any]:
    """Every item one call yields."""
    ctx = LlmContext(system_prompt="", messages=[user_message("hi")])
    return [item async for item in stream(ctx, StreamOptions(model="m", cancel=cancel))]


async def test_yields_events_then_final_message() -> None:
    items = await collect(
        ScriptedStream(reply(text("a", "b"), tool_call("c", "t", {"x": 1}, split=2))), AbortSignal()
    )
    assert [getattr(i, "type", None) for i in items[:-1]] == [
        "text_start", "text_delta", "text_delta", "text_end",
        "toolcall_start", "toolcall_delta", "toolcall_delta", "toolcall_end",
    ]  # fmt: skip
    final = items[-1]
    assert isinstance(final, AssistantMessage)
    assert (final.text, final.stop_reason, final.tool_calls[0].arguments) == (
        "ab",
        "toolUse",
        {"x": 1},
    )


async def test_honours_cancel_between_delayed_chunks() -> None:
    cancel = AbortSignal()
    stream = ScriptedStream(reply(text(*"abcdefgh"), delay=0.001))
    ctx = LlmContext(system_prompt="", messages=[user_message("hi")])
    items = []
    async for item in stream(ctx, StreamOptions(model="m", cancel=cancel)):
        items.append(item)
        if getattr(item, "delta", None) == "b":
            cancel.abort()  # the stream itself must notice: nothing cancels its task here
    final = items[-1]
    assert final.stop_reason == "aborted"
    assert final.text == "ab"
    assert stream.cancelled_seen == 1


async def test_hang_waits_for_cancel() -> None:
    cancel = AbortSignal()
    stream = ScriptedStream(reply(text("x"), hang=True))
    task = asyncio.create_task(collect(stream, cancel))
    await asyncio.wait_for(stream.hanging.wait(), 2)
    assert not task.done()
    cancel.abort()
    items = await asyncio.wait_for(task, 2)
    assert (items[-1].stop_reason, items[-1].text) == ("aborted", "x")


async def test_exhausted_script_answers_with_error() -> None:
    stream = ScriptedStream()
    items = await collect(stream, AbortSignal())
    assert items[-1].stop_reason == "error"
    assert stream.exhausted and stream.calls == 1
