"""RPC in pi's shapes, in process: queueing after a command prompt, images, coalesced updates
and the output size of a 20,000-word answer (RPC vs JSON mode)."""

from __future__ import annotations

import asyncio
import io
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from agent_core import (
    AssistantMessageBuilder,
    LlmContext,
    MessageUpdate,
    StreamOptions,
    TextDelta,
    TextEnd,
    TextStart,
)
from pi_cli.modes.json_writer import JsonEventWriter
from pi_cli.modes.pi_events import PiEventWriter
from pi_cli.modes.rpc.mode import RpcServer
from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.tui.helpers import GateTool

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="


class Rpc:
    """An in-process RPC server over one shell; ``lines()`` is everything it wrote."""

    def __init__(self, shell: CodingAgent) -> None:
        self.out = io.BytesIO()
        self.server = RpcServer(shell, self.out)
        shell.subscribe(self.server.write_event)

    async def send(self, **command: Any) -> dict[str, Any]:
        await self.server.handle_line(json.dumps(command).encode())
        return await self.response(command.get("id"))

    async def response(self, request_id: Any, timeout: float = 10) -> dict[str, Any]:
        """The response to ``request_id`` (a task may answer a little later: bash, compact)."""
        for _ in range(int(timeout * 100)):
            found = [
                x for x in self.lines() if x["type"] == "response" and x.get("id") == request_id
            ]
            if found:
                return found[-1]
            await asyncio.sleep(0.01)
        raise AssertionError(f"no response to {request_id}")

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.out.getvalue().splitlines()]


async def test_a_prompt_right_after_a_command_prompt_is_queued_by_streaming_behavior(
    project: Path,
) -> None:
    prompts = project / ".pi" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "audit.md").write_text("Review $1 carefully")
    stream = ScriptedStream(reply(text("reviewed"), delay=0.02), reply(text("and more")))
    shell = CodingAgent(ShellOptions(cwd=project, stream_fn=stream))
    rpc = Rpc(shell)
    assert (await rpc.send(type="prompt", id="t", message="/audit app.py"))["success"]
    refused = await rpc.send(type="prompt", id="x", message="no behaviour")
    assert refused["success"] is False and "streamingBehavior" in refused["error"]
    queued = await rpc.send(
        type="prompt", id="f", message="then this", streamingBehavior="followUp"
    )
    assert queued["success"], queued
    await rpc.server.drain()
    assert stream.user_texts(0) == ["Review app.py carefully"]
    assert stream.user_texts(1)[-1] == "then this"
    bad = await rpc.send(type="prompt", id="b", message="x", streamingBehavior="later")
    assert bad["success"] is False and "streamingBehavior" in bad["error"]


async def test_prompt_images_reach_the_model_and_bad_ones_are_refused(project: Path) -> None:
    stream = ScriptedStream(reply(text("a pixel")))
    shell = CodingAgent(ShellOptions(cwd=project, stream_fn=stream))
    rpc = Rpc(shell)
    for images, problem in [
        ("not a list", "must be a list"),
        ([{"type": "image", "data": "!!!", "mimeType": "image/png"}], "base64"),
        ([{"type": "image", "data": PIXEL, "mimeType": "text/plain"}], "mimeType"),
        ([{"type": "audio", "data": PIXEL, "mimeType": "image/png"}], "images[0]"),
    ]:
        answer = await rpc.send(type="prompt", id="bad", message="look", images=images)
        assert answer["success"] is False and problem in answer["error"]
    image = {"type": "image", "data": PIXEL, "mimeType": "image/png"}
    assert (await rpc.send(type="prompt", id="ok", message="look", images=[image]))["success"]
    await rpc.server.drain()
    sent = stream.contexts[0].messages[-1]
    assert [b.type for b in sent.content] == ["text", "image"] and sent.content[1].data == PIXEL
    assert stream.calls == 1


async def test_user_bash_waits_for_a_live_run_before_joining_the_context(project: Path) -> None:
    gate = GateTool()
    from tests.agent_core.scripted_stream import tool_call

    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "x"})), reply(text("done")), reply(text("2"))
    )
    shell = CodingAgent(ShellOptions(cwd=project, stream_fn=stream, tool_objects=[gate]))
    rpc = Rpc(shell)
    await rpc.send(type="prompt", id="p", message="go")
    await gate.started.wait()
    try:
        done = await rpc.send(type="bash", id="b", command="echo during")
        assert done["data"]["output"] == "during"
        assert [m.role for m in shell.messages] == ["user", "assistant"]  # not inside the turn
    finally:
        gate.release.set()
    await rpc.server.drain()
    messages = (await rpc.send(type="get_messages", id="m"))["data"]["messages"]
    assert [m["role"] for m in messages] == [
        "user",
        "assistant",
        "toolResult",
        "assistant",
        "bashExecution",
    ]
    await rpc.send(type="bash", id="q", command="echo quiet", includeInContext=False)
    await rpc.send(type="prompt", id="p2", message="next")
    await rpc.server.drain()
    seen = "\n".join(stream.user_texts(2))
    assert "Ran `echo during`\n```\nduring\n```" in seen and "quiet" not in seen
    entries = [json.loads(x) for x in shell.session.path.read_text().splitlines()[1:]]
    roles = [e["message"]["role"] for e in entries if e["type"] == "message"]
    assert roles.count("bashExecution") == 2  # both kept in the file, as pi keeps them


WORDS = 20_000


def paced_answer(chunks: list[str], pause_every: int) -> Any:
    """A StreamFn streaming ``chunks`` as fast as the loop allows (yielding now and then)."""

    async def stream(context: LlmContext, options: StreamOptions) -> AsyncIterator[Any]:
        builder = AssistantMessageBuilder(api="test-api", provider="test", model="big")
        for event in [TextStart(content_index=0)]:
            builder.apply(event)
            yield event
        for index, chunk in enumerate(chunks):
            event = TextDelta(content_index=0, delta=chunk)
            builder.apply(event)
            yield event
            if index % pause_every == 0:
                await asyncio.sleep(0.001)
        end = TextEnd(content_index=0, content="".join(chunks))
        builder.apply(end)
        yield end
        yield builder.finish("stop")

    return stream


def answer_chunks() -> list[str]:
    answer = " ".join(f"word{i % 997}" for i in range(WORDS))
    return [answer[i : i + 16] for i in range(0, len(answer), 16)]


async def test_rpc_updates_are_coalesced_and_the_20k_word_answer_is_measured(project: Path) -> None:
    chunks = answer_chunks()
    shell = CodingAgent(ShellOptions(cwd=project, stream_fn=paced_answer(chunks, 25)))
    rpc = Rpc(shell)
    began = time.monotonic()
    await rpc.send(type="prompt", id="p", message="write a lot")
    await rpc.server.drain()
    elapsed = time.monotonic() - began
    size = len(rpc.out.getvalue())
    updates = [x for x in rpc.lines() if x["type"] == "message_update"]
    deltas = [u for u in updates if u["assistantMessageEvent"]["type"] == "text_delta"]
    print(
        f"\nRPC: {WORDS} words, {len(chunks)} deltas -> {len(deltas)} updates, "
        f"{size / 1e6:.1f} MB in {elapsed:.2f} s"
    )
    assert "".join(d["assistantMessageEvent"]["delta"] for d in deltas) == "".join(chunks)
    assert len(deltas) <= 30 * elapsed + 5  # about 30 a second
    assert all(u["message"] == u["assistantMessageEvent"]["partial"] for u in updates[-3:])
    last = deltas[-1]["message"]["content"][0]["text"]
    assert last == "".join(chunks)  # the latest partial, not a stale one
    assert size < 400 * len(deltas) * 1000  # each update ~ 2 partials of <= 120 KB


async def test_json_mode_stays_linear_and_the_flag_gives_pis_shape(project: Path) -> None:
    chunks = answer_chunks()
    plain, partial = io.StringIO(), io.StringIO()
    for out, pi_shape in ((plain, False), (partial, True)):
        shell = CodingAgent(ShellOptions(cwd=project, stream_fn=paced_answer(chunks, 25)))
        writer = JsonEventWriter(out)
        shell.subscribe(PiEventWriter(writer.write_data, shell.thinking) if pi_shape else writer)
        await shell.submit("write a lot")
        await shell.wait_idle()
    plain_size, partial_size = len(plain.getvalue()), len(partial.getvalue())
    print(f"\nJSON: {plain_size / 1e6:.2f} MB linear, {partial_size / 1e6:.1f} MB --json-partials")
    assert plain_size < 3_000_000  # linear: the answer a few times over, not squared
    lines = [json.loads(x) for x in plain.getvalue().splitlines()]
    update = next(x for x in lines if x["type"] == "message_update")
    assert "message" not in update and "partial" not in update["assistantMessageEvent"]
    shaped = [json.loads(x) for x in partial.getvalue().splitlines()]
    update = next(x for x in shaped if x["type"] == "message_update")
    assert update["message"] == update["assistantMessageEvent"]["partial"]


def test_coalescing_at_real_model_speeds() -> None:
    """A simulated clock: the size of the 20k-word answer at 50 and 200 chunks a second."""
    chunks = answer_chunks()
    for rate in (50, 200):
        now = [0.0]
        written: list[int] = []

        def size(data: dict[str, Any], written: list[int] = written) -> None:
            written.append(len(json.dumps(data)))

        writer = PiEventWriter(size, clock=lambda now=now: now[0])
        builder = AssistantMessageBuilder(api="a", provider="p", model="m")
        for chunk in chunks:
            now[0] += 1 / rate
            event = TextDelta(content_index=0, delta=chunk)
            builder.apply(event)
            writer(MessageUpdate(message=builder.message, assistant_message_event=event))
        writer.flush()
        seconds = len(chunks) / rate
        print(
            f"\n{rate} chunks/s: {len(written)} updates, {sum(written) / 1e6:.0f} MB in {seconds:.0f} s"
        )
        assert len(written) <= 30 * seconds + 2


async def test_one_user_command_at_a_time_and_abort_bash_without_one(project: Path) -> None:
    shell = CodingAgent(ShellOptions(cwd=project, stream_fn=ScriptedStream()))
    rpc = Rpc(shell)
    assert (await rpc.send(type="abort_bash", id="none"))["success"]
    await rpc.server.handle_line(b'{"type": "bash", "id": "slow", "command": "sleep 5"}')
    second = await rpc.send(type="bash", id="again", command="echo hi")
    assert second["success"] is False and "already running" in second["error"]
    assert (await rpc.send(type="abort_bash", id="stop"))["success"]
    slow = await rpc.response("slow")
    assert slow["data"]["cancelled"] is True and slow["data"]["exitCode"] is None
    missing = await rpc.send(type="bash", id="m")
    assert missing["success"] is False and '"command"' in missing["error"]
