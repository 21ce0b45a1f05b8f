"""The plain REPL asks approvals with a prompt-toolkit prompt (pipe input, scripted model)."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from agent_core import ToolResultMessage
from pi_cli.modes.plain.repl import PlainRepl
from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call


async def until(predicate, out: io.StringIO, timeout: float = 10.0) -> None:
    end = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > end:
            raise AssertionError(f"timed out; output:\n{out.getvalue()}")
        await asyncio.sleep(0.02)


async def test_allow_once_deny_with_a_reason_and_always(tmp_path: Path, pi_home: Path) -> None:
    work = tmp_path / "project"
    work.mkdir()
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "touch a"})),
        reply(text("made a")),
        reply(tool_call("c2", "bash", {"command": "touch b"})),
        reply(text("no b")),
        reply(tool_call("c3", "bash", {"command": "touch c"})),
        reply(text("made c")),
        reply(tool_call("c4", "bash", {"command": "touch d"})),
        reply(text("made d")),
    )
    options = ShellOptions(cwd=work, stream_fn=stream, tools=["bash"], approvals="interactive")
    shell = CodingAgent(options)
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, force_terminal=False)
    with create_pipe_input() as pipe:
        repl = PlainRepl(shell, console=console, input=pipe, output=DummyOutput(),
                         history_file=tmp_path / "history")  # fmt: skip
        task = asyncio.create_task(repl.run())
        pipe.send_text("make a\r")
        await until(lambda: "permission needed: bash $ touch a" in out.getvalue(), out)
        await asyncio.sleep(0.2)  # the prompt is up
        pipe.send_text("y\r")
        await until(lambda: "made a" in out.getvalue(), out)
        assert (work / "a").exists()

        pipe.send_text("make b\r")
        await until(lambda: "touch b" in out.getvalue(), out)
        await asyncio.sleep(0.2)
        pipe.send_text("what?\r")  # unclear: asked again
        pipe.send_text("n not now\r")
        await until(lambda: "no b" in out.getvalue(), out)
        assert not (work / "b").exists()
        denied = [m for m in shell.messages if isinstance(m, ToolResultMessage)][-1]
        assert denied.text == "denied by the user: not now"

        pipe.send_text("make c\r")
        await until(lambda: "touch c" in out.getvalue(), out)
        await asyncio.sleep(0.2)
        pipe.send_text("a\r")
        await asyncio.sleep(0.2)
        pipe.send_text("u\r")  # user settings
        await until(lambda: "made c" in out.getvalue(), out)
        assert (pi_home / "settings.json").read_text().count("Bash(touch:*)") == 1

        pipe.send_text("make d\r")  # the saved rule covers it: no question
        await until(lambda: "made d" in out.getvalue(), out)
        assert (work / "d").exists() and out.getvalue().count("permission needed") == 3
        pipe.send_text("\x04")
        assert await asyncio.wait_for(task, 5) == 0


async def test_a_web_fetch_approval_is_readable_and_a_refused_url_is_never_asked(
    tmp_path: Path, pi_home: Path
) -> None:
    work = tmp_path / "project"
    work.mkdir()
    stream = ScriptedStream(
        reply(tool_call("w0", "web_fetch", {"url": "http://169.254.169.254/latest/"})),
        reply(tool_call("w1", "web_fetch", {"url": "https://docs.example.com/guide"})),
        reply(text("fetched nothing")),
    )
    options = ShellOptions(
        cwd=work, stream_fn=stream, tools=["web_fetch"], approvals="interactive",
        permission_mode="default",
    )  # fmt: skip
    shell = CodingAgent(options)
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, force_terminal=False)
    with create_pipe_input() as pipe:
        repl = PlainRepl(shell, console=console, input=pipe, output=DummyOutput(),
                         history_file=tmp_path / "history")  # fmt: skip
        task = asyncio.create_task(repl.run())
        pipe.send_text("read it\r")
        await until(lambda: "permission needed" in out.getvalue(), out)
        shown = out.getvalue()
        assert "GET https://docs.example.com/guide" in shown and '"url"' not in shown
        assert shown.count("permission needed") == 1  # the metadata address was never asked
        await asyncio.sleep(0.2)
        pipe.send_text("n\r")
        await until(lambda: "fetched nothing" in out.getvalue(), out)
        results = [m.text for m in shell.messages if isinstance(m, ToolResultMessage)]
        assert results[0].startswith("refused to fetch from 169.254.169.254")
        pipe.send_text("\x04")
        assert await asyncio.wait_for(task, 5) == 0
