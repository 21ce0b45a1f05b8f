"""The server's small parts on their own: the backlog, a client's queue, the stream rebuilder."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agent_core import AssistantMessage, TextContent, ThinkingContent, ToolCall, to_wire
from pi_cli.server.backlog import Backlog
from pi_cli.server.channel import ClientChannel
from pi_cli.server.client.decode import Decoder


def _add(backlog: Backlog, data: dict[str, Any]) -> None:
    backlog.add(json.dumps(data), data)


def _types(backlog: Backlog) -> list[str]:
    return [json.loads(line)["type"] + ":" + str(json.loads(line).get("n", "")) for line in backlog]


def test_the_backlog_keeps_one_update_per_stream_and_drops_resolved_requests() -> None:
    backlog = Backlog()
    _add(backlog, {"type": "agent_start"})
    _add(backlog, {"type": "message_start", "n": 1})
    for n in range(5):
        _add(backlog, {"type": "message_update", "n": n})
    assert _types(backlog)[-1] == "message_update:4" and len(backlog) == 3
    _add(backlog, {"type": "message_end", "n": 1})
    assert "message_update:4" not in _types(backlog)  # the end carries the whole message
    _add(backlog, {"type": "tool_execution_start", "toolCallId": "a"})
    _add(backlog, {"type": "extension_ui_request", "id": "perm-1"})
    _add(backlog, {"type": "permission_requested", "id": "perm-1"})
    for n in range(3):
        _add(backlog, {"type": "tool_execution_update", "toolCallId": "a", "n": n})
    _add(backlog, {"type": "permission_resolved", "id": "perm-1"})
    _add(backlog, {"type": "tool_execution_end", "toolCallId": "a"})
    assert _types(backlog) == [
        "agent_start:",
        "message_start:1",
        "message_end:1",
        "tool_execution_start:",
        "permission_resolved:",
        "tool_execution_end:",
    ]


def test_the_backlog_compacts_without_losing_order_or_later_drops() -> None:
    backlog = Backlog()
    for n in range(1000):  # many superseded updates: the list is compacted on the way
        _add(backlog, {"type": "message_update", "n": n})
        if n % 100 == 0:
            _add(backlog, {"type": "notice", "n": n})
    _add(backlog, {"type": "extension_ui_request", "id": "p"})
    for n in range(600):
        _add(backlog, {"type": "message_update", "n": 1000 + n})
    _add(backlog, {"type": "permission_resolved", "id": "p"})
    kinds = _types(backlog)
    assert kinds == [f"notice:{n}" for n in range(0, 1000, 100)] + [
        "message_update:1599",
        "permission_resolved:",
    ]
    backlog.reset()
    assert list(backlog) == [] and len(backlog) == 0


async def test_a_client_too_far_behind_is_dropped_and_its_queue_freed() -> None:
    channel = ClientChannel("rpc", limit=100)
    channel.allow_backlog(1000)  # what it was sent on attaching does not count
    channel.send("x" * 1000)
    assert not channel.closed
    channel.send("y" * 90)
    assert not channel.closed
    channel.send("z" * 20)
    assert channel.closed and channel.dropped and channel.queued_bytes == 0
    assert channel.finished.is_set()
    sent: list[str] = []

    async def send(text: str) -> None:
        sent.append(text)

    await asyncio.wait_for(channel.pump(send), 1)  # ends at once: nothing more is sent
    assert sent == []


async def test_a_caught_up_client_gets_a_line_from_the_publishing_call_in_order() -> None:
    """Nothing queued: the line is on the socket before the publisher returns (no wait for the
    pump's turn). A write that would wait for the socket to drain has written nothing: the pump
    sends it, then the lines published meanwhile, in order, and catches up again."""
    channel = ClientChannel("rpc")
    sent: list[str] = []
    writable = asyncio.Event()
    writable.set()

    async def send(text: str) -> None:
        await writable.wait()  # uvicorn's send: flow control first, then one write
        sent.append(text)

    pump = asyncio.ensure_future(channel.pump(send))
    await asyncio.sleep(0)  # the pump is waiting: caught up
    channel.send("a")
    assert sent == ["a"]  # written by the call itself
    writable.clear()  # the client stopped reading: the next write would wait
    channel.send("b")
    channel.send("c")
    assert sent == ["a"] and channel.queued_bytes == 2
    writable.set()
    for _ in range(5):
        await asyncio.sleep(0)
    assert sent == ["a", "b", "c"] and channel.queued_bytes == 0
    channel.send("d")
    assert sent == ["a", "b", "c", "d"]  # caught up again: at once
    channel.close()
    await asyncio.wait_for(pump, 1)


async def test_a_write_that_fails_in_the_publishing_call_drops_the_client() -> None:
    channel = ClientChannel("rpc")

    async def send(text: str) -> None:
        raise ConnectionResetError

    pump = asyncio.ensure_future(channel.pump(send))
    await asyncio.sleep(0)
    channel.send("a")
    assert channel.closed and channel.dropped == "write failed: ConnectionResetError"
    await asyncio.wait_for(pump, 1)


def _partial(*blocks: Any) -> AssistantMessage:
    return AssistantMessage(content=list(blocks))


def _update(message: AssistantMessage, event: dict[str, Any]) -> dict[str, Any]:
    return {"type": "message_update", "message": to_wire(message), "assistantMessageEvent": event}


def _deltas(events: list[Any]) -> dict[int, str]:
    text: dict[int, str] = {}
    for event in events:
        sub = getattr(event, "assistant_message_event", None)
        if sub is not None and sub.type in ("text_delta", "thinking_delta"):
            text[sub.content_index] = text.get(sub.content_index, "") + sub.delta
    return text


def test_the_stream_is_rebuilt_whole_from_partials_when_lines_were_dropped() -> None:
    decoder = Decoder()
    final = _partial(
        ThinkingContent(thinking="let me see"),
        TextContent(text="first part"),
        ToolCall(id="t1", name="bash", arguments={"command": "ls"}),
        TextContent(text="the answer, at length"),
    )
    events = decoder.events({"type": "message_start", "message": to_wire(_partial())})
    # Only the newest update of the message survived in the backlog (block 3 streaming).
    partial = _partial(*final.content[:3], TextContent(text="the answer"))
    events += decoder.events(
        _update(partial, {"type": "text_delta", "contentIndex": 3, "delta": "wer"})
    )
    events += decoder.events({"type": "message_end", "message": to_wire(final)})
    kinds = [getattr(getattr(e, "assistant_message_event", None), "type", e.type) for e in events]
    assert kinds == [
        "message_start",
        "thinking_start",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_end",
        "toolcall_start",
        "toolcall_end",
        "text_start",
        "text_delta",
        "text_delta",
        "text_end",
        "message_end",
    ]
    assert _deltas(events) == {0: "let me see", 1: "first part", 3: "the answer, at length"}


def test_live_coalesced_updates_give_each_character_once() -> None:
    decoder = Decoder()
    decoder.events({"type": "message_start", "message": to_wire(_partial())})
    words = ["héllo", " wörld", "", " 🙂", " and\nmore"]
    text = ""
    events: list[Any] = []
    events += decoder.events(
        _update(_partial(TextContent(text="")), {"type": "text_start", "contentIndex": 0})
    )
    for word in words:
        text += word
        line = _update(
            _partial(TextContent(text=text)),
            {"type": "text_delta", "contentIndex": 0, "delta": word},
        )
        events += decoder.events(line)
    events += decoder.events(
        _update(
            _partial(TextContent(text=text)),
            {"type": "text_end", "contentIndex": 0, "content": text},
        )
    )
    events += decoder.events(
        {"type": "message_end", "message": to_wire(_partial(TextContent(text=text)))}
    )
    assert _deltas(events) == {0: text}
    ends = [
        e
        for e in events
        if getattr(getattr(e, "assistant_message_event", None), "type", "") == "text_end"
    ]
    assert len(ends) == 1 and ends[0].assistant_message_event.content == text


def test_unknown_and_malformed_lines_are_no_events() -> None:
    decoder = Decoder()
    assert decoder.events({"type": "from_a_newer_server", "x": 1}) == []
    assert decoder.events({"type": "message_update", "message": "nope"}) == []
    assert decoder.events({"type": "queue_update", "steering": []}) == []
    assert decoder.events({"nothing": True}) == []
    (state,) = decoder.events({"type": "shell_state", "state": "running"})
    assert state.state == "running"


def test_a_message_update_line_is_the_same_bytes_with_its_partial_encoded_once() -> None:
    from agent_core import MessageUpdate, TextDelta, ToolCallDelta
    from pi_cli.modes.pi_events import PiEventWriter
    from pi_cli.server.hosted import line_text
    from pi_cli.shell import REDACTOR, dumps_line

    secret = "sk-test-0123456789abcdef"
    REDACTOR.add(secret)
    try:
        lines: list[dict[str, Any]] = []
        writer = PiEventWriter(lines.append, interval=0.0)
        partial = AssistantMessage(
            content=[
                ThinkingContent(thinking='é\ud800 «quoted» "x" \\ '),
                TextContent(text=f"héllo {secret} \u2028 end"),
                ToolCall(id="c1", name="bash", arguments={"command": "ls 'a b'"}),
            ],
            model="m",
        )
        writer(
            MessageUpdate(
                message=partial, assistant_message_event=TextDelta(content_index=1, delta="é")
            )
        )
        writer(
            MessageUpdate(
                message=partial, assistant_message_event=ToolCallDelta(content_index=2, delta="{")
            )
        )
        writer.flush()
        assert len(lines) == 2
        for data in lines:
            assert data["message"] is data["assistantMessageEvent"]["partial"]
            assert line_text(data) == dumps_line(data)[:-1].decode("utf-8")
            assert secret not in line_text(data) and "[REDACTED]" in line_text(data)
        # Anything else (a partial that is another object, no partial) is encoded whole.
        other = {**lines[0], "assistantMessageEvent": {**lines[0]["assistantMessageEvent"]}}
        other["assistantMessageEvent"]["partial"] = dict(other["message"])
        assert line_text(other) == dumps_line(other)[:-1].decode("utf-8")
    finally:
        REDACTOR.clear()


def test_the_heap_freezes_what_lives_and_collects_what_a_closed_session_left() -> None:
    import gc
    import weakref

    from pi_cli.server.heap import Heap

    class Cycle:
        def __init__(self) -> None:
            self.me = self

    heap = Heap()
    try:
        kept = Cycle()
        gone = weakref.ref(kept)
        heap.settle()  # like a session's objects: frozen, out of every later collection
        assert gc.get_freeze_count() > 0
        del kept
        gc.collect()
        assert gone() is not None  # garbage now, but frozen: the collector does not walk it
        heap.tidy(quiet=True)
        assert gone() is not None  # nothing was released: no full walk
        heap.released()  # a session closed
        heap.tidy(quiet=False)
        assert gone() is not None  # a run is streaming: not now
        heap.tidy(quiet=True)
        assert gone() is None and not heap.frozen_garbage
        assert gc.get_freeze_count() > 0  # what lives is frozen again
    finally:
        gc.unfreeze()
