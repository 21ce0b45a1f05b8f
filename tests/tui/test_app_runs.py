"""Pilot tests: runs, streaming, steer and follow-up queues, abort (SPEC §5, issue 6)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pi_cli.tui.document.entries import UserBlock
from pi_cli.tui.document.tool import ToolBlock
from pi_cli.tui.document.turn import TurnBlock
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import SEED_FINAL_TEXT, seed_script
from tests.tui.helpers import (
    SIZE,
    GateTool,
    blocks_of,
    make_app,
    make_project,
    make_shell,
    type_text,
    wait_until,
)
from tests.tui.screen_text import colour_of, screen_text


def _user_texts(request: dict) -> list[str]:
    """User message texts of one OpenAI chat request."""
    out = []
    for message in request["messages"]:
        if message["role"] == "user":
            content = message["content"]
            out.append(
                content if isinstance(content, str) else "".join(p.get("text", "") for p in content)
            )
    return out


async def test_seed_scenario_renders_four_turn_panels(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    with FakeProviderServer(script=seed_script()) as server:
        shell = make_shell(
            project, model="openai/fake", api_base=server.openai_base_url, api_key="x"
        )
        app = make_app(shell)
        async with app.run_test(size=SIZE) as pilot:
            await type_text(pilot, "List files, then tell me what this project is.")
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.is_settled and len(app.transcript.turns) == 4)
            await pilot.pause()
            panels = blocks_of(app, TurnBlock)
            assert [p.number for p in panels] == [1, 2, 3, 4]
            titles = [str(p.title) for p in panels]
            assert "bash" in titles[0] and "read" in titles[1] and "read" in titles[2]
            assert all(t.startswith(f"Turn {i}") for i, t in enumerate(titles, 1))
            assert "↑120 ↓20" in titles[0]
            assert panels[3].text == SEED_FINAL_TEXT
            blocks = blocks_of(app, ToolBlock)
            assert [b.tool_name for b in blocks] == ["bash", "read", "read"]
            assert all(b.state == "success" for b in blocks)
            assert "hello.mjs" in blocks[0].output_text
            # The prompt is shown before the first panel, once.
            users = blocks_of(app, UserBlock)
            assert [u.text for u in users] == ["List files, then tell me what this project is."]
            assert "hello.mjs prints a greeting" in screen_text(app)
        assert len(server.requests) == 4


async def test_streaming_text_appears_before_the_turn_ends(tmp_path: Path) -> None:
    stream = ScriptedStream(
        reply(text("Streaming ", "answer ", "part one", " part two"), hang=True, hang_after=4)
    )
    app = make_app(make_shell(tmp_path, stream, tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "hi")
        await pilot.press("enter")
        await stream.hanging.wait()
        await wait_until(pilot, lambda: "Streaming answer part one" in screen_text(app))
        panel = app.transcript.turns[0]
        # The title follows the body on the next tick (a loaded machine may draw text first).
        await wait_until(pilot, lambda: "running" in str(panel.title))
        assert panel.live
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.is_settled)
        assert not panel.live
        assert "Aborted." in screen_text(app)


async def test_enter_while_live_steers_into_the_next_turn(tmp_path: Path) -> None:
    gate = GateTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "build"})), reply(text("steered answer"))
    )
    app = make_app(make_shell(tmp_path, stream, tools=[gate]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await gate.started.wait()
        await type_text(pilot, "use make instead")
        await pilot.press("enter")
        await pilot.pause()
        assert app.editor.text == ""
        assert app.queue_view.steering == ["use make instead"]
        assert "Steering: use make instead" in screen_text(app)
        gate.release.set()
        await wait_until(pilot, lambda: app.is_settled)
        await pilot.pause()
        assert stream.calls == 2
        assert stream.user_texts(0) == ["go"]
        assert stream.user_texts(1) == ["go", "use make instead"]
        assert app.queue_view.steering == [] and not app.queue_view.has_class("-shown")
        # Delivered steer shows in the transcript right before the turn that received it.
        entries = app.transcript.view.entries
        steer_view = next(
            c for c in entries if isinstance(c, UserBlock) and c.text == "use make instead"
        )
        assert steer_view.injected
        assert entries[entries.index(steer_view) + 1] is app.transcript.turns[1]
        screen = screen_text(app)
        assert screen.index("› use make instead") < screen.index("steered answer")


@pytest.mark.parametrize("chord", ["ctrl+enter", "alt+enter", "tab"])
async def test_follow_up_chords_deliver_after_the_final_answer(tmp_path: Path, chord: str) -> None:
    gate = GateTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "build"})),
        reply(text("final answer")),
        reply(text("follow-up answer")),
    )
    app = make_app(make_shell(tmp_path, stream, tools=[gate]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await gate.started.wait()
        await type_text(pilot, "then run tests")
        await pilot.press(chord)
        await pilot.pause()
        assert app.queue_view.follow_ups == ["then run tests"]
        assert app.queue_view.steering == []
        assert "Follow-up: then run tests" in screen_text(app)
        gate.release.set()
        await wait_until(pilot, lambda: app.is_settled)
        assert stream.calls == 3
        assert stream.user_texts(1) == ["go"]  # not delivered as a steer
        assert stream.user_texts(2) == ["go", "then run tests"]
        assert [p.text for p in app.transcript.turns] == ["", "final answer", "follow-up answer"]


async def test_tab_completes_when_idle_instead_of_queueing(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/mo")
        await pilot.pause()
        assert app.menu.is_open and app.menu.items[0].label == "/model"
        await pilot.press("tab")
        assert app.editor.text == "/model "
        assert not app.menu.is_open


async def test_escape_aborts_a_slow_bash_tool_and_restores_the_queue(tmp_path: Path) -> None:
    stream = ScriptedStream(
        reply(
            tool_call(
                "c1",
                "bash",
                {"command": "for i in 1 2 3 4 5 6 7 8; do echo tick $i; sleep 0.3; done; sleep 30"},
            )
        )
    )
    # The loop is not read-only: this test is about aborting, not approvals.
    shell = make_shell(tmp_path, stream, tools=None, permission_mode="bypassPermissions")
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: (
                bool(blocks_of(app, ToolBlock))
                and "tick 2" in blocks_of(app, ToolBlock)[0].output_text
            ),
        )
        await type_text(pilot, "steer me")
        await pilot.press("enter")
        await type_text(pilot, "follow me")
        await pilot.press("alt+enter")
        await pilot.pause()
        assert app.queue_view.steering == ["steer me"] and app.queue_view.follow_ups == [
            "follow me"
        ]
        started = time.monotonic()
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.is_settled)
        assert time.monotonic() - started < 5  # the sleep was killed, not waited for
        assert app.editor.text == "steer me\nfollow me"
        assert not app.queue_view.has_class("-shown")
        assert shell.queued() == []
        assert stream.calls == 1
        assert "Aborted." in screen_text(app)


async def test_alt_up_pulls_queued_messages_back(tmp_path: Path) -> None:
    gate = GateTool()
    stream = ScriptedStream(reply(tool_call("c1", "bash", {"command": "x"})), reply(text("ok")))
    app = make_app(make_shell(tmp_path, stream, tools=[gate]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await gate.started.wait()
        await type_text(pilot, "first")
        await pilot.press("enter")
        await type_text(pilot, "second")
        await pilot.press("tab")
        await pilot.press("alt+up")
        await pilot.pause()
        assert app.editor.text == "first\nsecond"
        assert app.queue_view.steering == [] and app.queue_view.follow_ups == []
        gate.release.set()
        await wait_until(pilot, lambda: app.is_settled)
        assert stream.user_texts(1) == ["go"]


async def test_chords_see_all_text_typed_before_them(tmp_path: Path) -> None:
    """Keys arriving in one burst (tmux send-keys, fast typists): Enter and Alt+Enter must act on
    the full text even though priority bindings fire before queued characters are inserted."""
    from textual import events

    gate = GateTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "x"})), reply(text("a")), reply(text("b"))
    )
    app = make_app(make_shell(tmp_path, stream, tools=[gate]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await gate.started.wait()
        for key in [*"steer", "enter", *"later", "alt+enter"]:
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await wait_until(pilot, lambda: app.queue_view.follow_ups == ["later"])
        assert app.queue_view.steering == ["steer"] and app.editor.text == ""
        gate.release.set()
        await wait_until(pilot, lambda: app.is_settled)


async def test_slash_commands_typed_during_a_run_run_instead_of_steering(tmp_path: Path) -> None:
    gate = GateTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "build"})), reply(text("done"))
    )
    app = make_app(make_shell(tmp_path, stream, tools=[gate]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await gate.started.wait()
        await type_text(pilot, "/session")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Session:" in screen_text(app))
        await type_text(pilot, "/new")
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: "Cannot run /new while the agent is running" in screen_text(app)
        )
        assert app.queue_view.steering == []
        assert app.shell.busy  # the run went on
        gate.release.set()
        await wait_until(pilot, lambda: app.is_settled)
        assert stream.calls == 2
        assert stream.user_texts(1) == ["go"]  # no command text reached the model


async def test_steer_follow_up_and_an_edited_queue_item_come_from_the_shell(
    tmp_path: Path,
) -> None:
    """Enter and Tab only hand text to the shell; an item edited in the shell's queue is shown
    edited and reaches the model edited, each in the right request."""
    gate = GateTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "build"})),
        reply(text("after steer")),
        reply(text("done")),
    )
    shell = make_shell(tmp_path, stream, tools=[gate])
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await gate.started.wait()
        await type_text(pilot, "first steer")
        await pilot.press("enter")
        await type_text(pilot, "a follow-up")
        await pilot.press("tab")
        await wait_until(pilot, lambda: len(shell.queued()) == 2)
        follow = shell.queued()[1]
        shell.queue.edit(follow.id, "an edited follow-up")
        await wait_until(pilot, lambda: app.queue_view.follow_ups == ["an edited follow-up"])
        assert app.queue_view.steering == ["first steer"]
        gate.release.set()
        await wait_until(pilot, lambda: app.is_settled and stream.calls == 3)
    assert stream.user_texts(1) == ["go", "first steer"]
    assert stream.user_texts(2) == ["go", "first steer", "an edited follow-up"]


async def test_a_finished_turn_loses_the_live_border(tmp_path: Path) -> None:
    """A live turn's bar is drawn in the active border colour, a finished one's in the plain."""
    stream = ScriptedStream(reply(text("Done ", "now."), hang=True, hang_after=2))
    app = make_app(make_shell(tmp_path, stream, tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "hi")
        await pilot.press("enter")
        await stream.hanging.wait()
        await wait_until(pilot, lambda: "Done" in screen_text(app))
        variables = app.theme_variables
        live = colour_of(app, "Turn 1", "▎")
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.is_settled)
        await pilot.pause()
        finished = colour_of(app, "Turn 1", "▎")
        assert live == variables["border-active"].lower()
        assert finished == variables["border"].lower()
