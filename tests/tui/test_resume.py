"""A resumed conversation (``pi -c``, ``--session``, ``/resume``, ``/fork``, ``/tree``) is drawn as
it was live: prompts, numbered turn panels with their tool blocks (collapsed) and thinking, a
"resumed N messages" line; long sessions mount their tail at once and older turns on scroll."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from agent_core import messages as M
from pi_cli.shell.session.store import compaction_summary_message
from pi_cli.tui import messages as m
from pi_cli.tui.app import PiApp, TuiOptions
from pi_cli.tui.document.entries import SkillBlock, SummaryBlock, UserBlock
from pi_cli.tui.document.tool import ToolBlock
from pi_cli.tui.document.turn import ThinkingBlock, TurnBlock
from pi_cli.tui.history_view import BATCH_GROUPS, FIRST_GROUPS
from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.tui.helpers import (
    SIZE,
    blocks_of,
    make_app,
    make_shell,
    seed_tools,
    type_text,
    wait_until,
)
from tests.tui.helpers import notices as notice_texts
from tests.tui.screen_text import screen_text


def drawn(app: PiApp) -> list[Any]:
    """The prompts and turns drawn at the top level of the transcript."""
    return [b for b in app.transcript.view.entries if isinstance(b, UserBlock | TurnBlock)]


def _turns(count: int, *, failing_last: bool = False) -> list[Any]:
    """``count`` turns: a prompt, a bash call with 30 lines of output, then the answer."""
    out: list[Any] = []
    for i in range(count):
        out.append(M.UserMessage(content=f"question {i}"))
        call = M.ToolCall(id=f"c{i}", name="bash", arguments={"command": f"make step{i}"})
        out.append(
            M.AssistantMessage(
                content=[
                    M.ThinkingContent(thinking=f"plan {i}"),
                    M.TextContent(text="Running."),
                    call,
                ],
                usage=M.Usage(input=100 + i, output=7),
            )
        )
        lines = "\n".join(f"line {n}" for n in range(30))
        error = failing_last and i == count - 1
        result = f"{lines}\nFAILED step{i}\n\nCommand exited with code 1" if error else lines
        out.append(
            M.ToolResultMessage(
                tool_call_id=f"c{i}", tool_name="bash", content=result, is_error=error
            )
        )
        out.append(M.AssistantMessage(content=[M.TextContent(text=f"## Answer {i}\n\n- a\n- b\n")]))
    return out


def _shell(tmp_path: Path, messages: list[Any], stream: ScriptedStream | None = None) -> Any:
    shell = make_shell(tmp_path, stream or ScriptedStream(), tools=seed_tools())
    shell.agent.replace_messages(messages)
    return shell


async def test_a_resumed_conversation_is_drawn_as_it_was_live(tmp_path: Path) -> None:
    app = make_app(_shell(tmp_path, _turns(2, failing_last=True)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        users = [u.text for u in blocks_of(app, UserBlock)]
        assert users == ["question 0", "question 1"]
        panels = blocks_of(app, TurnBlock)
        assert [p.number for p in panels] == [1, 2, 3, 4]
        assert str(panels[0].title) == "Turn 1 · bash · ↑100 ↓7" and not panels[0].live
        blocks = blocks_of(app, ToolBlock)
        assert [b.title for b in blocks] == ["$ make step0", "$ make step1"]
        assert all(b.rest == "collapsed" and not b.expanded for b in blocks)
        assert blocks[0].state == "success" and blocks[1].state == "error"
        # Collapsed: one summary line; a failed call also shows its last line (the error).
        assert blocks[0].output_text == "(30 lines, Ctrl+O to expand)"
        assert blocks[1].output_text.endswith("Command exited with code 1")
        thinking = blocks_of(app, ThinkingBlock)
        assert [t.text for t in thinking] == ["plan 0", "plan 1"] and all(
            t.collapsed for t in thinking
        )
        notes = notice_texts(app)
        assert "Resumed 8 messages of session" in " ".join(notes)
        await pilot.press("ctrl+o")  # expand every tool block
        await pilot.pause()
        assert all(b.expanded for b in blocks)
        assert "line 29" in blocks[0].output_text


async def test_new_turns_are_numbered_after_the_resumed_ones(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("a new answer")))
    app = make_app(_shell(tmp_path, _turns(2), stream))
    async with app.run_test(size=SIZE) as pilot:
        await type_text(pilot, "go on")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.is_settled and stream.calls == 1)
        await pilot.pause()
        assert app.transcript.turns[-1].number == 5
        assert "Turn 5" in str(app.transcript.turns[-1].title)


async def test_a_deferred_shell_with_messages_shows_them(tmp_path: Path) -> None:
    release = threading.Event()

    def factory():
        release.wait(10)
        return _shell(tmp_path, _turns(3))

    app = PiApp(
        None,
        TuiOptions(clock=lambda: 0.0, persist_theme=False, cursor_blink=False, cwd=tmp_path),
        shell_factory=factory,
    )
    async with app.run_test(size=SIZE) as pilot:
        release.set()
        await wait_until(pilot, lambda: app.shell is not None)
        await wait_until(pilot, lambda: len(blocks_of(app, TurnBlock)) == 6)
        await wait_until(pilot, lambda: "Answer 2" in screen_text(app))
        assert "## Answer" not in screen_text(app)  # Markdown, not raw text


async def test_a_long_session_mounts_its_tail_then_older_turns_on_scroll(tmp_path: Path) -> None:
    messages = _turns(500)  # 2,000 messages: 500 prompts, 1,000 turns, 500 tool calls
    shell = _shell(tmp_path, [])
    app = make_app(shell)
    async with app.run_test(size=SIZE) as pilot:
        shell.agent.replace_messages(messages)
        app.post_message(m.SessionSwitched("resume"))  # the time it takes: bench/bench_tui.py
        await wait_until(pilot, lambda: len(blocks_of(app, TurnBlock)) > 0)
        await pilot.pause()
        groups = 500 * 3  # a prompt, a turn with the call, the answer's turn
        assert len(drawn(app)) == FIRST_GROUPS
        assert app.transcript.turns == [] and app.transcript.turn_count == 1000
        numbers = [p.number for p in blocks_of(app, TurnBlock)]
        assert numbers[-1] == 1000 and numbers == sorted(numbers)
        note = app.transcript.earlier_note
        assert note is not None and f"{groups - FIRST_GROUPS} earlier messages" in note.plain_text()
        bottom_text = screen_text(app)
        await pilot.press("ctrl+home")  # to the top: one older batch is mounted
        await wait_until(
            pilot,
            lambda: len(drawn(app)) == FIRST_GROUPS + BATCH_GROUPS,
        )
        await pilot.pause()
        numbers = [p.number for p in blocks_of(app, TurnBlock)]
        assert numbers == sorted(numbers)
        await pilot.press("ctrl+end")
        await pilot.pause()

        def without_scrollbar(text: str) -> list[str]:
            return [line[: SIZE[0] - 2].rstrip() for line in text.splitlines()[-8:]]

        assert without_scrollbar(screen_text(app)) == without_scrollbar(bottom_text)


async def test_skill_calls_and_compaction_summaries_are_drawn_short(tmp_path: Path) -> None:
    skill = '<skill name="greeter" location="/x/SKILL.md">\n# Greeter\nSay hello.\n</skill>\n\nBob'
    messages = [
        compaction_summary_message("## Goal\nKeep going."),
        M.UserMessage(content=skill),
        M.AssistantMessage(content=[M.TextContent(text="Hello, Bob!")]),
    ]
    app = make_app(_shell(tmp_path, messages))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        (summary,) = blocks_of(app, SummaryBlock)
        assert summary.collapsed and "Compacted" in str(summary.title)
        (view,) = blocks_of(app, SkillBlock)
        assert view.text == "/skill:greeter Bob" and view.collapsed
        text = screen_text(app)
        assert "› /skill:greeter Bob" in text and "Say hello." not in text
        view.toggle()
        await pilot.pause()
        assert "Say hello." in screen_text(app)


async def test_compact_says_so_once_and_its_summary_can_be_read(tmp_path: Path) -> None:
    stream = ScriptedStream(
        reply(text("first answer " * 50)),
        reply(text("second answer " * 50)),
        reply(text("## Goal\nThe summary of it all.")),
    )
    app = make_app(make_shell(tmp_path, stream, tools=[]))
    async with app.run_test(size=SIZE) as pilot:
        for prompt in ("first", "second"):
            await type_text(pilot, prompt)
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.is_settled)
        await type_text(pilot, "/compact")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(blocks_of(app, SummaryBlock)) == 1)
        await wait_until(pilot, lambda: app.is_settled)
        await pilot.pause()
        (summary,) = blocks_of(app, SummaryBlock)
        assert str(summary.title).startswith("Compacted context:") and summary.collapsed
        notes = notice_texts(app)
        assert not any(n.startswith("Compacted") for n in notes)  # said once, by the block
        await pilot.press("ctrl+up")  # the cursor lands on the summary; Ctrl+O opens it
        assert app.cursor.item is summary
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert not summary.collapsed and "The summary of it all." in screen_text(app)
