"""Extensions that hang, print escape sequences or flood: pi stays in charge."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from pi_cli.shell import Notice
from pi_cli.shell.config.settings import Settings
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.shell.extensions.helpers import results, shell_with, texts, write_extension

FAST = Settings.model_validate({"extensionTimeoutS": 0.5})


@pytest.mark.parametrize(
    "body",
    [
        "time.sleep(3600)",  # a sync handler that never returns
        "await asyncio.sleep(3600)",  # an async one
        "time.sleep(3600)  # inside async def: would block an event loop",
    ],
)
async def test_a_handler_that_hangs_is_bounded_and_disabled(
    project: Path, pi_home: Path, body: str
) -> None:
    is_async = "await" in body or "async def" in body
    write_extension(
        pi_home / "extensions",
        "sleepy",
        f"""
        import asyncio, time

        def register(pi):
            @pi.on("before_tool_call")
            {"async " if is_async else ""}def check(event):
                {body}
        """,
    )
    notices: list[Notice] = []
    stream = ScriptedStream(
        reply(tool_call("c1", "write", {"path": "a.txt", "content": "1"})),
        reply(tool_call("c2", "write", {"path": "b.txt", "content": "2"})),
        reply(text("done")),
    )
    shell = shell_with(project, stream, notices=notices, settings=FAST)
    began = time.monotonic()
    await shell.submit("go")
    assert time.monotonic() - began < 30  # bounded (by 0.5 s here), not for ever
    assert results(shell)[0].startswith("Blocked: extension sleepy failed")
    assert results(shell)[1].startswith("Created b.txt")
    assert "Extension sleepy before_tool_call did not finish within 0.5 s; it is disabled" in texts(
        notices
    )
    await shell.aclose()


async def test_an_extension_hanging_at_import_does_not_hang_the_start(
    project: Path, pi_home: Path
) -> None:
    write_extension(pi_home / "extensions", "stuck", "import time\ntime.sleep(3600)\n")
    notices: list[Notice] = []
    shell = shell_with(project, notices=notices, settings=FAST)
    assert "Extension stuck loading did not finish within 0.5 s; it is disabled" in texts(notices)
    assert shell.extensions.runtime.items["stuck"].state == "failed"


async def test_a_dialog_waiting_for_the_user_is_not_a_hang(project: Path, pi_home: Path) -> None:
    write_extension(
        pi_home / "extensions",
        "asker",
        """
        from pi_cli.shell.extensions import Block

        def register(pi):
            @pi.on("before_tool_call")
            async def check(event, ctx):
                if not await ctx.ui.confirm(f"Allow {event.tool_name}?"):
                    return Block("the user said no")
        """,
    )
    stream = ScriptedStream(
        reply(tool_call("c1", "write", {"path": "a.txt", "content": "1"})), reply(text("done"))
    )
    shell = shell_with(project, stream, settings=FAST, approvals="interactive")
    import asyncio

    run = shell.submit("go")
    while not shell.dialogs.pending:
        await asyncio.sleep(0.01)
    await asyncio.sleep(1.2)  # longer than the timeout: the user is thinking
    assert shell.extensions.runtime.items["asker"].state == "live"
    shell.answer(shell.dialogs.pending[0].id, {"confirmed": False})
    await run
    assert results(shell) == ["the user said no"] and not (project / "a.txt").exists()


async def test_what_an_extension_prints_is_a_cleaned_notice_not_terminal_output(
    project: Path, pi_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_extension(
        pi_home / "extensions",
        "noisy",
        r"""
        import sys

        print("\x1b]52;c;cGF3bmVk\x07loaded \x1b[2Jquietly")

        def register(pi):
            @pi.on("turn_end")
            def loud(event):
                print("turn \x1b[31mended\x1b[0m", end="")
                print(" and more")
                sys.stderr.write("\x1b]0;owned\x07warned\n")
                pi.ui.notify("\x1b[2Jhello\x1b]0;title\x07 there")
                pi.ui.set_status("s", "st\x1b[5matus")
        """,
    )
    notices: list[Notice] = []
    shell = shell_with(project, ScriptedStream(reply(text("hi"))), notices=notices)
    await shell.submit("go")
    import asyncio

    for _ in range(200):
        if any("warned" in n.text for n in notices) and shell.dialogs.ui_state():
            break
        await asyncio.sleep(0.02)
    ours = [(n.text, n.level, n.source) for n in notices if n.source == "extension noisy"]
    assert ("loaded quietly", "info", "extension noisy") in ours
    assert ("turn ended and more", "info", "extension noisy") in ours
    assert ("warned", "warning", "extension noisy") in ours
    assert ("hello there", "info", "extension noisy") in ours
    assert [p.text for p in shell.dialogs.ui_state()] == ["status"]
    out = capsys.readouterr()
    assert "\x1b" not in out.out + out.err and "quietly" not in out.out
