"""Signs of life and attention: spinners with elapsed time, tokens streamed in the footer, retry
notes inside their turn with a countdown, notifications when the terminal is unfocused, /copy,
Ctrl+G in $EDITOR."""

from __future__ import annotations

import sys
from pathlib import Path

from pi_cli.shell.config.settings import RetrySettings, Settings
from pi_cli.tui import messages as m
from pi_cli.tui.controllers.attention import BEL, notification
from pi_cli.tui.document.entries import NoteBlock
from pi_cli.tui.document.turn import AnswerBlock, TurnBlock
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn
from tests.tui.helpers import (
    SIZE,
    GateTool,
    blocks_of,
    make_app,
    make_shell,
    notices,
    screen_line,
    type_text,
    wait_until,
)
from tests.tui.screen_text import screen_text


async def test_spinners_elapsed_time_and_tokens_say_what_is_going_on(tmp_path: Path) -> None:
    now = [100.0]
    gate = GateTool()
    stream = ScriptedStream(
        reply(text("Let me look."), tool_call("c1", "bash", {"command": "sleep 4"})),
        reply(text("done")),
    )
    app = make_app(make_shell(tmp_path, stream, tools=[gate]), clock=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await gate.started.wait()
        await pilot.pause()
        frames = []
        for step in (1.2, 0.15):
            now[0] += step
            app.tick()
            await pilot.pause()
            frames.append((screen_line(app, "bash $ sleep 4"), app.footer.text.splitlines()[0]))
        assert frames[0] != frames[1]  # two screens a moment apart always differ
        title, activity = frames[1]
        assert "bash $ sleep 4 · 1.4s" in title
        assert "running bash · 1.4s · Esc to abort" in activity
        assert "Turn 1 ·" in str(app.transcript.turns[0].title) and "running 1.4s" in str(
            app.transcript.turns[0].title
        )
        gate.release.set()
        await wait_until(pilot, lambda: app.is_settled)
        app.tick()
        assert app.footer.text.splitlines()[0].strip() == ""  # idle: nothing is going on


async def test_waiting_for_the_first_token_and_tokens_streamed(tmp_path: Path) -> None:
    now = [0.0]
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]), clock=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        app.transcript.post_message(m.TurnStarted())
        await pilot.pause()
        now[0] = 2.5
        app.transcript.tick(now[0])
        assert "waiting for the model 2.5s" in str(app.transcript.turns[0].title)
        item = app.activity.item("running", 0, [])
        assert item is not None and "waiting for the model" in item.text
        item = app.activity.item("running", 1234, [])
        assert item is not None and "answering · ↓1.2k tokens" in item.text
        assert app.activity.item("idle", 0, []) is None
        assert "compacting" in str(app.activity.item("compacting", 0, [])).lower()


async def test_retry_notes_sit_in_their_turn_before_the_answer(tmp_path: Path) -> None:
    settings = Settings(retry=RetrySettings(max_retries=3, base_delay_ms=20))
    script = [
        Turn(status=500, error_message="upstream exploded"),
        Turn(text="First turn after a 500."),
    ]
    with FakeProviderServer(script) as server:
        shell = make_shell(
            tmp_path,
            model="openai/fake",
            api_base=server.openai_base_url,
            api_key="test-key-123",
            settings=settings,
        )
        app = make_app(shell)
        async with app.run_test(size=SIZE) as pilot:
            await type_text(pilot, "hi")
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.is_settled and server.remaining == 0)
            await pilot.pause()
            (panel,) = blocks_of(app, TurnBlock)
            texts = [c.plain_text() for c in panel.body if isinstance(c, NoteBlock)]
            assert (
                texts[0].startswith("Retrying (1/3) in 0.0s:") and "upstream exploded" in texts[0]
            )
            assert texts[1] == "Retry 1 succeeded."
            assert isinstance(panel.body.items[-1], AnswerBlock)  # the answer last
            screen = screen_text(app)
            assert screen.index("Retrying (1/3)") < screen.index("First turn after a 500.")
            assert not any("Retry" in text for text in notices(app))


async def test_a_retry_that_gives_up_says_so_once(tmp_path: Path) -> None:
    settings = Settings(retry=RetrySettings(max_retries=2, base_delay_ms=10))
    script = [Turn(status=503, error_message="service unavailable")] * 3
    with FakeProviderServer(script) as server:
        shell = make_shell(
            tmp_path, model="openai/fake", api_base=server.openai_base_url, api_key="x",
            settings=settings,
        )  # fmt: skip
        app = make_app(shell)
        async with app.run_test(size=SIZE) as pilot:
            await type_text(pilot, "hi")
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.is_settled)
            await pilot.pause()
            screen = screen_text(app)
            assert screen.count("gave up after 2 retries") == 1
            assert "Retry gave up" not in screen
            assert app.activity.retry is None


async def test_the_countdown_of_a_pending_retry(tmp_path: Path) -> None:
    now = [10.0]
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]), clock=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        app.transcript.post_message(m.TurnStarted())
        app.transcript.post_message(m.RetryShown("Retrying (2/3) in 4.0s: HTTP 429", delay_s=4.0))
        await pilot.pause()
        now[0] += 1.0
        item = app.activity.item("running", 0, [])
        assert item is not None and item.text.endswith("Retrying (2/3) in 3s · Esc cancels")
        app.transcript.post_message(m.RetryShown("Retry cancelled."))
        await pilot.pause()
        assert app.activity.retry is None


def test_notification_sequences_per_terminal() -> None:
    assert notification("pi", "Done.", "auto", {"TERM": "xterm-256color"}) == BEL
    vte = notification("pi", "Done; ok", "auto", {"VTE_VERSION": "7000"})
    assert vte == f"\x1b]777;notify;pi;Done, ok{BEL}"
    assert (
        notification("pi", "Done.", "auto", {"TERM_PROGRAM": "iTerm.app"})
        == f"\x1b]9;pi: Done.{BEL}"
    )
    assert notification("pi", "x", "auto", {"KITTY_WINDOW_ID": "1"}).startswith("\x1b]99;")
    wrapped = notification("pi", "Done.", "auto", {"VTE_VERSION": "1", "TMUX": "/tmp/x"})
    assert wrapped.startswith("\x1bPtmux;\x1b\x1b]777;") and wrapped.endswith(BEL)
    assert notification("pi", "Done.", "bell", {"VTE_VERSION": "1"}) == BEL
    assert notification("pi", "Done.", "off", {"VTE_VERSION": "1"}) == ""
    assert "\x1b" not in notification("pi", "evil\x1b]0;x\x07", "auto", {"VTE_VERSION": "1"})[10:-1]


async def test_a_run_ending_while_unfocused_rings(tmp_path: Path) -> None:
    gate = GateTool()
    stream = ScriptedStream(
        reply(text("one")), reply(tool_call("c1", "bash", {"command": "x"})), reply(text("two"))
    )
    app = make_app(make_shell(tmp_path, stream, tools=[gate]), env={"VTE_VERSION": "7000"})
    async with app.run_test(size=SIZE) as pilot:
        assert app.attention is not None
        await type_text(pilot, "focused")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled and stream.calls == 1)
        assert app.attention.sent == []  # looking at pi: nothing rings
        await type_text(pilot, "unfocused")
        await pilot.press("enter")
        await gate.started.wait()
        app.app_focus = False  # the terminal reported focus-out (a key press would undo it)
        gate.release.set()
        await wait_until(pilot, lambda: app.is_settled and stream.calls == 3)
        assert app.attention.sent == [f"\x1b]777;notify;pi;Done.{BEL}"]


async def test_copy_puts_the_last_answer_on_the_clipboard_and_in_a_file(
    tmp_path: Path, pi_home: Path
) -> None:
    stream = ScriptedStream(reply(text("The **answer** is 42.")))
    app = make_app(make_shell(tmp_path, stream, tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "/copy")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Nothing to copy yet" in screen_text(app))
        await type_text(pilot, "question")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled and stream.calls == 1)
        await type_text(pilot, "/copy")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.clipboard == "The **answer** is 42.")
        assert (pi_home / "last-answer.md").read_text() == "The **answer** is 42."
        assert "saved to" in screen_text(app)


async def test_ctrl_g_edits_the_prompt_in_the_editor_command(
    tmp_path: Path, monkeypatch: object
) -> None:
    script = tmp_path / "fake_editor.py"
    script.write_text(
        "import sys\np = sys.argv[1]\ntext = open(p).read()\n"
        "open(p, 'w').write(text.upper() + ' EDITED\\n')\n"
    )
    monkeypatch.setenv("VISUAL", f"{sys.executable} {script}")  # type: ignore[attr-defined]
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "draft prompt")
        await pilot.press("ctrl+g")
        await wait_until(pilot, lambda: app.editor.text == "DRAFT PROMPT EDITED")
        monkeypatch.setenv("VISUAL", "false")  # type: ignore[attr-defined]
        await pilot.press("ctrl+g")  # a failing editor leaves the prompt alone
        await pilot.pause()
        assert app.editor.text == "DRAFT PROMPT EDITED"


async def test_an_approval_waiting_while_unfocused_notifies(tmp_path: Path) -> None:
    app = make_app(make_shell(tmp_path, ScriptedStream(), tools=[]), env={"VTE_VERSION": "1"})
    async with app.run_test(size=SIZE) as pilot:
        app.app_focus = False
        app.post_message(
            m.ApprovalRequested("r1", "bash", "$ rm -rf build", "writes outside", "rm -rf build")
        )
        await pilot.pause()
        assert app.attention is not None
        assert app.attention.sent == [
            f"\x1b]777;notify;pi;Approval needed: bash $ rm -rf build{BEL}"
        ]


async def test_a_stall_mid_answer_says_so_in_the_turn_title(tmp_path: Path) -> None:
    """Text streamed, then nothing: after a few seconds the title says for how long, not
    "running" (and never "waiting for the model" once text came)."""
    now = [0.0]
    stream = ScriptedStream(reply(text("The first half of an answer"), hang=True, hang_after=3))
    app = make_app(make_shell(tmp_path, stream, tools=[]), clock=lambda: now[0])
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await stream.hanging.wait()
        await wait_until(pilot, lambda: "first half" in screen_text(app))
        title = lambda: str(app.transcript.turns[-1].title)  # noqa: E731
        # The stall counts from the first tick that saw the text (at 0 s or at 1 s).
        for moment, expected in ((1.0, "running 1.0s"), (4.0, "running 4.0s"),
                                 (9.5, "no output for ")):  # fmt: skip
            now[0] = moment
            app.transcript.tick(now[0])
            assert expected in title() and "waiting for the model" not in title(), title()
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.is_settled)


async def test_the_footer_counts_a_finished_turns_tokens_while_the_run_goes_on(
    tmp_path: Path,
) -> None:
    from agent_core import Usage

    quick, gate = GateTool("read"), GateTool("bash")
    quick.release.set()
    stream = ScriptedStream(
        reply(tool_call("c1", "read", {"command": "a"}), usage=Usage(input=1234, output=56)),
        reply(tool_call("c2", "bash", {"command": "b"}), usage=Usage(input=2000, output=7)),
        reply(text("done")),
    )
    app = make_app(make_shell(tmp_path, stream, tools=[quick, gate]))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go")
        await pilot.press("enter")
        await gate.started.wait()  # turn 1 is over; turn 2's answer is in, its tool waits
        app.tick()  # the footer's tokens are drawn with the tick
        await pilot.pause()
        footer = app.footer.text.splitlines()
        assert "↑3.2k ↓63" in footer[-1], footer  # both model calls, before the run's end
        assert "running bash" in footer[0]  # the run goes on
        gate.release.set()
        await wait_until(pilot, lambda: app.is_settled)
        await pilot.pause()
        assert "↑3.2k ↓63" in app.footer.text.splitlines()[-1]
