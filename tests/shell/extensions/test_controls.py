"""The shell's controls an extension has (pi-ts's ``pi.exec``, ``setActiveTools``, ``setModel``,
``setThinkingLevel``, ``getCommands``, ``setSessionName``, ``ctx.isIdle``...), through a real
shell and a scripted model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pi_cli.shell import ConfigError, Notice
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.shell.extensions.helpers import results, shell_with, texts, write_extension

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "extensions"


async def test_set_active_tools_takes_the_others_away_from_the_model(
    project: Path, pi_home: Path
) -> None:
    """The plan-mode example: the model is offered only ``read``, and a ``write`` it calls
    anyway is not run; ``/plan`` again gives the tools back."""
    (pi_home / "settings.json").write_text(
        json.dumps({"extensions": [str(EXAMPLES / "plan_mode.py")]})
    )
    stream = ScriptedStream(
        reply(tool_call("c1", "write", {"path": "x.txt", "content": "no"})),
        reply(text("could not write")),
        reply(tool_call("c2", "write", {"path": "x.txt", "content": "yes"})),
        reply(text("written")),
    )
    shell = shell_with(project, stream, permission_mode="acceptEdits")
    assert (await shell.submit("/plan")).output == "Plan mode on: read."
    assert [p.text for p in shell.dialogs.ui_state()] == ["⏸ plan"]
    await shell.submit("write x")
    assert [t.name for t in stream.contexts[0].tools] == ["read"]
    assert not (project / "x.txt").exists()
    assert "write" in results(shell)[0] and "not" in results(shell)[0].lower()
    assert (await shell.submit("/plan")).output == "Plan mode off: every tool is back."
    assert shell.dialogs.ui_state() == []
    await shell.submit("write it now")
    assert [t.name for t in stream.contexts[2].tools] == ["read", "write", "edit"]
    assert (project / "x.txt").read_text() == "yes"


CONTROLS = """
    import json
    import sys

    def register(pi):
        @pi.command(description="What the shell says")
        async def probe(args: str, ctx) -> str:
            mine = [c.source for c in pi.commands() if c.name == "probe"]
            pi.set_session_name("  Renamed   by  extension ")
            return json.dumps({
                "idle": ctx.is_idle(),
                "pending": ctx.has_pending_messages(),
                "prompt": "You are" in ctx.system_prompt,
                "source": mine,
                "name": ctx.session_name,
                "builtin": any(c.name == "model" and c.source == "builtin" for c in ctx.commands()),
            })

        @pi.command(description="An unknown tool")
        def bad(args: str, ctx) -> str:
            try:
                ctx.set_active_tools(["read", "rm_rf"])
            except ValueError as exc:
                return str(exc)
            return "accepted"

        @pi.command(description="Switch model and thinking")
        def switch(args: str, ctx) -> str:
            ok = ctx.set_model(args)
            ctx.set_thinking_level("high")
            return f"{ok} {ctx.model} {ctx.thinking}"

        @pi.command(description="Run a program")
        async def run(args: str, ctx) -> str:
            code = "import sys; print(sys.stdin.read().upper()); sys.stderr.write('err'); sys.exit(3)"
            done = await pi.exec(sys.executable, ["-c", code], input="hello")
            return json.dumps([done.stdout, done.stderr, done.code, done.killed])

        @pi.command(description="A program that outlives its timeout")
        async def hang(args: str, ctx) -> str:
            script = "import subprocess; p = subprocess.Popen(['sleep', '60']); print(p.pid, flush=True); subprocess.run(['sleep', '60'])"
            done = await ctx.exec(sys.executable, ["-c", script], timeout=0.5)
            return json.dumps([done.stdout, done.code, done.killed])

        @pi.command(description="Huge output")
        async def flood(args: str, ctx) -> str:
            done = await ctx.exec(sys.executable, ["-c", "import sys; sys.stdout.write('x' * 30_000_000)"])
            return str(len(done.stdout))

        try:
            pi.is_idle()
        except RuntimeError as exc:
            print(f"in register: {exc}")
"""


async def test_the_shell_as_an_extension_controls_it(project: Path, pi_home: Path) -> None:
    write_extension(pi_home / "extensions", "controls", CONTROLS)
    notices: list[Notice] = []
    shell = shell_with(project, ScriptedStream(), notices=notices, persist_session=True)
    seen = json.loads((await shell.submit("/probe")).output)
    assert seen == {
        "idle": False,  # a command is running: its own
        "pending": False,
        "prompt": True,
        "source": ["extension"],
        "name": "Renamed by extension",
        "builtin": True,
    }
    assert "in register: the session and the shell are for handlers" in texts(notices)
    assert (await shell.submit("/bad")).output == "unknown tools: rm_rf"
    assert [t.name for t in shell.agent.tools] == ["read", "write", "edit"]  # unchanged
    answer = (await shell.submit("/switch other/model-b")).output
    assert answer == "True other/model-b high" and shell.thinking == "high"

    def refuse(spec: str, *, record: bool = True) -> None:
        raise ConfigError(f"Unknown provider in {spec}")

    shell.set_model = refuse  # type: ignore[method-assign]  # as a real catalog refuses
    assert (await shell.submit("/switch nowhere/x")).output == "False other/model-b high"
    assert json.loads((await shell.submit("/run")).output) == ["HELLO\n", "err", 3, False]


async def test_exec_kills_the_whole_process_group_at_its_timeout(
    project: Path, pi_home: Path
) -> None:
    write_extension(pi_home / "extensions", "controls", CONTROLS)
    shell = shell_with(project, ScriptedStream())
    stdout, code, killed = json.loads((await shell.submit("/hang")).output)
    assert (code, killed) == (None, True)
    child = Path(f"/proc/{int(stdout)}/stat")  # the grandchild went with its group
    for _ in range(500):
        if not child.exists() or child.read_text().split(")")[-1].split()[0] == "Z":
            break
        await asyncio.sleep(0.01)
    assert not child.exists() or child.read_text().split(")")[-1].split()[0] == "Z"
    assert int((await shell.submit("/flood")).output) == 10 * 1024 * 1024  # kept: the cap
