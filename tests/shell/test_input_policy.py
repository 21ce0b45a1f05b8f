"""What input typed while pi is busy becomes: decided by the shell for every front end."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from agent_core import AgentEnd
from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from pi_cli.shell.commands import CommandResult, SlashCommand
from pi_cli.shell.events import QueueChanged, QueueReturned, ShellStateChanged
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.tui.helpers import GateTool


def _shell(tmp_path: Path, stream: ScriptedStream, tools: list[Any] | None = None) -> CodingAgent:
    options = ShellOptions(cwd=tmp_path, stream_fn=stream, persist_session=False)
    options.tool_objects = list(tools or [])
    return CodingAgent(options)


def _gated(*later: Any) -> tuple[GateTool, ScriptedStream]:
    gate = GateTool()
    stream = ScriptedStream(reply(tool_call("c1", "bash", {"command": "build"})), *later)
    return gate, stream


async def test_steer_follow_up_and_an_edited_item_reach_the_model_in_order(tmp_path: Path) -> None:
    gate, stream = _gated(reply(text("after steer")), reply(text("after follow-up")))
    shell = _shell(tmp_path, stream, [gate])
    events: list[Any] = []
    shell.subscribe(events.append)
    run = shell.submit("build it")
    await gate.started.wait()
    assert shell.state == "running"
    assert await shell.submit("use ninja") is None  # queued at once
    await shell.submit("then run the tests", "follow_up")
    await shell.submit("never sent", "follow_up")
    steer, follow, dropped = shell.queued()
    assert [steer.kind, follow.kind, dropped.kind] == ["steer", "follow_up", "follow_up"]
    shell.queue.edit(steer.id, "use ninja, not make")
    shell.queue.remove(dropped.id)
    gate.release.set()
    assert await run is None
    await shell.wait_idle()
    assert stream.calls == 3
    assert stream.user_texts(1) == ["build it", "use ninja, not make"]
    assert stream.user_texts(2) == ["build it", "use ninja, not make", "then run the tests"]
    assert shell.queued() == [] and not shell.busy
    snapshots = [[i.text for i in e.items] for e in events if isinstance(e, QueueChanged)]
    assert ["use ninja, not make", "then run the tests"] in snapshots


async def test_a_promoted_follow_up_arrives_as_a_steer(tmp_path: Path) -> None:
    gate, stream = _gated(reply(text("done")))
    shell = _shell(tmp_path, stream, [gate])
    run = shell.submit("go")
    await gate.started.wait()
    await shell.submit("urgent", "follow_up")
    (item,) = shell.queued()
    assert shell.queue.promote(item.id).kind == "steer"
    gate.release.set()
    await run
    assert stream.calls == 2 and stream.user_texts(1) == ["go", "urgent"]


async def test_text_typed_during_a_command_is_held_and_sent_as_its_own_prompt(
    tmp_path: Path,
) -> None:
    stream = ScriptedStream(reply(text("later answer")))
    shell = _shell(tmp_path, stream)
    done = asyncio.Event()

    async def slow(_shell: Any, _args: str) -> CommandResult:
        await done.wait()
        return CommandResult(output="slow done")

    shell.commands.register(SlashCommand("slow", "Wait (test)", slow))
    command = shell.submit("/slow")
    await asyncio.sleep(0)
    assert shell.state == "command"
    await shell.submit("later", "follow_up")
    assert [(i.kind, i.text) for i in shell.queued()] == [("held", "later")]
    done.set()
    assert (await command).output == "slow done"  # resolves before the held prompt runs
    await shell.wait_idle()
    assert stream.calls == 1 and stream.user_texts(0) == ["later"]


async def test_commands_while_busy_run_now_or_are_refused(tmp_path: Path) -> None:
    gate, stream = _gated(reply(text("done")))
    shell = _shell(tmp_path, stream, [gate])
    run = shell.submit("go")
    await gate.started.wait()
    helped = await shell.submit("/help")
    assert helped is not None and "Commands:" in (helped.output or "")
    refused = await shell.submit("/new")
    assert (
        refused is not None
        and refused.error
        and "while the agent is running" in (refused.output or "")
    )
    assert shell.queued() == []
    gate.release.set()
    await run


async def test_abort_hands_the_queue_back_and_sends_nothing_more(tmp_path: Path) -> None:
    gate, stream = _gated(reply(text("unused")))
    shell = _shell(tmp_path, stream, [gate])
    events: list[Any] = []
    shell.subscribe(events.append)
    run = shell.submit("go")
    await gate.started.wait()
    await shell.submit("steer")
    await shell.submit("follow", "follow_up")
    shell.abort()
    await run
    await shell.wait_idle()
    (returned,) = [e for e in events if isinstance(e, QueueReturned)]
    assert [i.text for i in returned.items] == ["steer", "follow"] and returned.reason == "aborted"
    assert stream.calls == 1 and shell.queued() == [] and not shell.busy


async def test_a_failed_run_hands_the_queue_back_instead_of_sending_it(tmp_path: Path) -> None:
    gate, stream = _gated(reply(error="HTTP 401: invalid api key"))
    shell = _shell(tmp_path, stream, [gate])
    events: list[Any] = []
    shell.subscribe(events.append)
    run = shell.submit("go")
    await gate.started.wait()
    await shell.submit("then deploy", "follow_up")
    gate.release.set()
    await run
    await shell.wait_idle()
    (returned,) = [e for e in events if isinstance(e, QueueReturned)]
    assert returned.reason == "error" and [i.text for i in returned.items] == ["then deploy"]
    assert stream.calls == 2


async def test_input_arriving_after_the_loops_last_drain_is_sent_next(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("first")), reply(text("second")))
    shell = _shell(tmp_path, stream)
    states: list[str] = []
    late: list[asyncio.Future[Any]] = []

    def listener(event: Any) -> None:
        if isinstance(event, ShellStateChanged):
            states.append(event.state)
        if isinstance(event, AgentEnd) and not late:  # the run's loop has stopped draining
            late.append(shell.submit("late steer"))

    shell.subscribe(listener)
    await shell.submit("one")
    await shell.wait_idle()
    assert stream.calls == 2 and stream.user_texts(1) == ["one", "late steer"]
    assert states[0] == "preparing" and "running" in states and states[-1] == "idle"
    assert states.count("idle") == 1  # busy from the first input to the end of the held one
