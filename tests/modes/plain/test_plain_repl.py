"""The plain REPL driven through a pipe input: prompts, steering, follow-ups, abort, commands."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from agent_core import Usage
from pi_cli.modes.plain.keys import PiCompleter
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.modes.plain.harness import (
    ALT_ENTER,
    CTRL_C,
    CTRL_J,
    ENTER,
    ESC,
    TAB,
    GateTool,
    plain_repl,
)


async def test_prompt_renders_turns_markdown_usage_and_history(tmp_path: Path) -> None:
    gate = GateTool()
    gate.release()
    stream = ScriptedStream(
        reply(
            tool_call("c1", "gate", {"label": "package.json"}), usage=Usage(input=120, output=20)
        ),
        reply(text("The project is **tiny**.\n\n- one\n- two"), usage=Usage(input=200, output=16)),
    )
    async with plain_repl(tmp_path, stream, tools=[gate]) as h:
        h.send("what is this" + ENTER)
        await h.until(lambda: "tokens" in h.output, what="the usage line")
        assert await h.quit() == 0
    out = h.output
    assert "── turn 1 · gate package.json ──" in out
    assert "▸ gate package.json" in out
    assert "gate package.json open" in out  # the (truncated) tool result
    assert "── turn 2 ──" in out
    assert "The project is tiny." in out and "**" not in out  # Markdown rendered, not raw
    assert "• one" in out
    # Not padded to the width with spaces: the terminal's scrollback copies and re-wraps it.
    assert "The project is tiny.\n" in out and " • two\n" in out
    assert "· 2 turns · ↑320 ↓36 tokens" in out
    assert "what is this" in h.history.read_text()


async def test_steer_reaches_the_next_turn(tmp_path: Path) -> None:
    gate = GateTool()
    stream = ScriptedStream(reply(tool_call("c1", "gate", {})), reply(text("steered answer")))
    async with plain_repl(tmp_path, stream, tools=[gate]) as h:
        h.send("start" + ENTER)
        await gate.entered.wait()
        assert h.repl.running
        h.send("also check tests" + ENTER)
        await h.until(lambda: [i.kind for i in h.shell.queued()] == ["steer"], what="the steer")
        assert "queued steer: also check tests" in "".join(t for _, t in h.repl._message())
        gate.release()
        await h.until(lambda: "steered answer" in h.output)
        await h.idle()
    assert stream.calls == 2
    assert stream.user_texts(1) == ["start", "also check tests"]
    assert "» delivered: also check tests" in h.output
    assert stream.roles(1) == ["user", "assistant", "toolResult", "user"]


async def test_follow_ups_wait_for_the_final_answer(tmp_path: Path) -> None:
    gate = GateTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "gate", {})),
        reply(text("first answer")),
        reply(text("answer to alt-enter")),
        reply(text("answer to tab")),
    )
    async with plain_repl(tmp_path, stream, tools=[gate]) as h:
        h.send("go" + ENTER)
        await gate.entered.wait()
        h.send("later one" + ALT_ENTER)
        await h.until(
            lambda: [i.kind for i in h.shell.queued()] == ["follow_up"], what="alt+enter follow-up"
        )
        h.send("later two" + TAB)
        await h.until(
            lambda: [i.kind for i in h.shell.queued()] == ["follow_up"] * 2, what="tab follow-up"
        )
        assert not [i for i in h.shell.queued() if i.kind == "steer"]
        message = "".join(t for _, t in h.repl._message())
        assert "queued follow-up: later one" in message and "queued follow-up: later two" in message
        gate.release()
        await h.until(lambda: "answer to tab" in h.output)
        await h.idle()
    assert stream.calls == 4
    assert stream.user_texts(1) == ["go"]  # not delivered before the final answer
    assert stream.user_texts(2) == ["go", "later one"]
    assert stream.user_texts(3) == ["go", "later one", "later two"]
    out = h.output
    assert (
        out.index("first answer")
        < out.index("» delivered: later one")
        < out.index("answer to alt-enter")
    )


async def test_escape_aborts_and_restores_queued_input(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("thinking about it"), hang=True), reply(text("after abort")))
    async with plain_repl(tmp_path, stream) as h:
        h.send("long job" + ENTER)
        await h.stream.hanging.wait()
        h.send("pending steer" + ENTER)
        await h.until(lambda: [i.kind for i in h.shell.queued()] == ["steer"])
        h.send(ESC)
        await h.idle()
        assert "aborted" in h.output
        assert h.repl.session.default_buffer.text == "pending steer"  # given back, not lost
        assert not [i for i in h.shell.queued() if i.kind == "steer"]
        h.send(ENTER)  # send the restored text as a new prompt
        await h.until(lambda: "after abort" in h.output)
    assert stream.user_texts(1)[-1] == "pending steer"


async def test_ctrl_c_aborts_a_run_and_clears_an_idle_line(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("x"), hang=True))
    async with plain_repl(tmp_path, stream) as h:
        h.send("go" + ENTER)
        await h.stream.hanging.wait()
        h.send(CTRL_C)
        await h.idle()
        assert "aborted" in h.output
        h.send("half typed")
        await h.until(lambda: h.repl.session.default_buffer.text == "half typed")
        h.send(CTRL_C)
        await h.until(lambda: h.repl.session.default_buffer.text == "")
        assert not h.task.done()


async def test_multiline_input_with_ctrl_j(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("ok")))
    async with plain_repl(tmp_path, stream) as h:
        h.send("line one" + CTRL_J + "line two" + ENTER)
        await h.until(lambda: "tokens" in h.output)
    assert stream.user_texts(0) == ["line one\nline two"]


async def test_slash_commands(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("ok")))
    async with plain_repl(tmp_path, stream) as h:
        h.send("/help" + ENTER)
        await h.until(lambda: "Commands:" in h.output)
        h.send("/session" + ENTER)
        await h.until(lambda: "Session:" in h.output)
        h.send("/model" + ENTER)
        await h.until(lambda: "pi --list-models" in h.output)
        h.send("/resume" + ENTER)
        await h.until(lambda: "/resume N" in h.output or "No saved sessions" in h.output)
        h.send("/thinking high" + ENTER)
        await h.until(lambda: "Thinking level set to high" in h.output)
        assert stream.calls == 0
        h.send("/quit" + ENTER)
        assert await h.task == 0
    assert "Model: test/scripted" in h.output


async def test_resume_by_number(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("first")), reply(text("second")))
    async with plain_repl(tmp_path, stream) as h:
        h.send("hello" + ENTER)
        await h.until(lambda: "tokens" in h.output)
        first_id = h.shell.session.session_id
        h.send("/new" + ENTER)
        await h.until(lambda: h.shell.session.session_id != first_id)
        h.send("/resume" + ENTER)
        await h.until(lambda: "/resume N" in h.output)
        listed = h.repl.pickers.choices["resume"]
        number = next(i for i, p in enumerate(listed, 1) if first_id in p)
        h.send(f"/resume {number}" + ENTER)
        await h.until(lambda: f"Resumed session {first_id}" in h.output)
    assert [m.role for m in h.shell.messages] == ["user", "assistant"]


async def test_commands_while_running(tmp_path: Path) -> None:
    gate = GateTool()
    stream = ScriptedStream(reply(tool_call("c1", "gate", {})), reply(text("done")))
    async with plain_repl(tmp_path, stream, tools=[gate]) as h:
        h.send("go" + ENTER)
        await gate.entered.wait()
        h.send("/new" + ENTER)
        await h.until(lambda: "Cannot run /new while the agent is running" in h.output)
        h.send("/session" + ENTER)
        await h.until(lambda: "Session:" in h.output)
        assert not [i for i in h.shell.queued() if i.kind == "steer"]
        h.send("/quit" + ENTER)
        assert await h.task == 0
    assert "aborting…" in h.output
    assert not h.shell.busy


def test_completion_of_commands_and_paths(tmp_path: Path) -> None:
    class _Shell:
        from pi_cli.shell.builtin_commands import builtin_commands
        from pi_cli.shell.commands import SlashCommandRegistry

        commands = SlashCommandRegistry()
        for command in builtin_commands():
            commands.register(command)
        cwd = tmp_path

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    (tmp_path / "setup.cfg").write_text("")
    (tmp_path / ".hidden").write_text("")
    completer = PiCompleter(_Shell())

    def complete(text: str) -> list[str]:
        return [
            c.text
            for c in completer.get_completions(
                Document(text), CompleteEvent(completion_requested=True)
            )
        ]

    assert complete("/he") == ["/help"]
    assert "/session" in complete("/se")
    assert complete("look at @s") == ["@setup.cfg", "@src/"]
    assert complete("@src/m") == ["@src/main.py"]
    assert complete("@") == ["@setup.cfg", "@src/"]  # hidden files only when asked for
    assert complete("@.h") == ["@.hidden"]
    assert complete("plain words") == []


async def test_steer_follow_up_and_an_edited_queue_item_come_from_the_shell(
    tmp_path: Path,
) -> None:
    """The REPL only hands text to the shell; the shell's queue (edited here by id) is what the
    model receives, and what the prompt area shows."""
    gate = GateTool()
    stream = ScriptedStream(
        reply(tool_call("c1", "gate", {})), reply(text("after steer")), reply(text("done"))
    )
    async with plain_repl(tmp_path, stream, tools=[gate]) as h:
        h.send("go" + ENTER)
        await gate.entered.wait()
        h.send("first steer" + ENTER)
        h.send("a follow-up" + TAB)
        await h.until(lambda: len(h.shell.queued()) == 2, what="both queued")
        steer = h.shell.queued()[0]
        h.shell.queue.edit(steer.id, "edited steer")
        message = "".join(t for _, t in h.repl._message())
        assert (
            "queued steer: edited steer" in message and "queued follow-up: a follow-up" in message
        )
        gate.release()
        await h.until(lambda: "done" in h.output)
        await h.idle()
    assert stream.user_texts(1) == ["go", "edited steer"]
    assert stream.user_texts(2) == ["go", "edited steer", "a follow-up"]


async def test_bang_commands_run_in_the_shell_and_reach_the_next_prompt(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("seen")))
    async with plain_repl(tmp_path, stream) as h:
        h.send("!echo plain-bang" + ENTER)
        await h.until(lambda: "$ echo plain-bang" in h.output and "sent to the model" in h.output)
        h.send("!!echo only-shown" + ENTER)
        await h.until(lambda: "(not sent to the model)" in h.output)
        h.send("go" + ENTER)
        await h.until(lambda: "seen" in h.output)
        await h.idle()
    sent = "\n".join(stream.user_texts(0))
    assert "plain-bang" in sent and "only-shown" not in sent


async def test_an_unknown_command_is_asked_about_not_sent(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("sent as asked")))
    async with plain_repl(tmp_path, stream) as h:
        h.send("/tpyo hello" + ENTER)
        h.send("n" + ENTER)  # no: back into the input line
        await h.until(lambda: h.repl.session.default_buffer.text == "/tpyo hello")
        assert stream.calls == 0
        h.send(CTRL_C)  # clear the line
        h.send("/sesion" + ENTER)
        h.send("1" + ENTER)  # the command it is close to
        await h.until(lambda: "Session: " in h.output, what="/session's output")
        assert stream.calls == 0
        h.send("/tpyo hello" + ENTER)
        h.send("y" + ENTER)
        await h.until(lambda: "sent as asked" in h.output)
        await h.idle()
    assert stream.user_texts(0) == ["/tpyo hello"]


async def test_an_edit_shows_the_language_servers_new_problems(tmp_path: Path) -> None:
    from pi_cli.shell.config.settings import Settings
    from tests.shell.lsp.conftest import fake
    from tools import create_edit_tool, create_read_tool

    work = tmp_path / "project"
    work.mkdir()
    (work / "a.fk").write_text("one = 1\ntwo = 2\n")
    edit = {"path": "a.fk", "edits": [{"old_text": "two = 2", "new_text": "two = BAD 2 MEH"}]}
    stream = ScriptedStream(
        reply(tool_call("r1", "read", {"path": "a.fk"})),
        reply(text("read it")),
        reply(tool_call("e1", "edit", edit)),
        reply(text("broken")),
    )
    settings = Settings.model_validate(
        {"lsp": {"servers": {"fake": fake()}}, "permissions": {"defaultMode": "auto"}}
    )
    tools = [create_read_tool(work), create_edit_tool(work)]
    async with plain_repl(
        tmp_path, stream, tools=tools, settings=settings, approvals="interactive"
    ) as h:
        h.send("read" + ENTER)
        await h.until(lambda: "read it" in h.output, what="the first answer")
        await h.idle()  # the answer is printed before the run ends (the toolbar says running)
        await h.shell.lsp.started.idle()  # type: ignore[union-attr]
        assert "LSP fake✓" in h.repl._toolbar()  # the bottom toolbar (DummyOutput draws none)
        h.send("edit" + ENTER)
        await h.until(lambda: "broken" in h.output, what="the second answer", timeout=30)
        assert await h.quit() == 0
    out = h.output.split("▸ edit", 1)[1]
    lines = [line.rstrip() for line in out.splitlines()]
    # The counts, then the diff, then under it the new problems with their source line.
    assert lines[1:12] == [
        "  fake: 1 new error, 1 new warning in a.fk",
        "  --- a/a.fk",
        "  +++ b/a.fk",
        "  @@ -1,2 +1,2 @@",
        "   one = 1",
        "  -two = 2",
        "  +two = BAD 2 MEH",
        "  a.fk:2:7: error: bad thing 2 [F1]",
        "      two = BAD 2 MEH",
        "  a.fk:2:13: warning: meh thing [F1]",
        "      two = BAD 2 MEH",
    ]


async def test_context_and_usage_print_in_the_scrollback(tmp_path: Path) -> None:
    stream = ScriptedStream(reply(text("an answer")))
    async with plain_repl(tmp_path, stream) as h:
        h.send("hello" + ENTER)
        await h.until(lambda: "an answer" in h.output)
        await h.idle()
        h.send("/context" + ENTER)
        await h.until(lambda: "messages" in h.output.split("Context:")[-1], what="/context")
        h.send("/usage" + ENTER)
        await h.until(lambda: "This session (1 answer):" in h.output, what="/usage")
    out = h.output
    assert "system prompt" in out and "tools" in out and "█" in out
    assert "Today (1 answer):" in out
