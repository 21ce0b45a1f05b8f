"""``/reload``: extensions, skills, templates, profiles, settings and context files read again,
the session kept; under a live run it waits for the run to end."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pi_cli.shell import Notice, Reloaded
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call
from tests.shell.extensions.helpers import results, shell_with, texts, write_extension

V1 = """
    def register(pi):
        @pi.command(description="version")
        def version(args):
            return "v1"

        @pi.on("session_shutdown")
        def bye(event):
            print(f"v1 shut down ({event.reason})")
"""


async def test_reload_reads_everything_again_and_keeps_the_session(
    project: Path, pi_home: Path
) -> None:
    folder = pi_home / "extensions"
    write_extension(folder, "ver", V1)
    notices: list[Notice] = []
    events: list[Reloaded] = []
    shell = shell_with(project, ScriptedStream(reply(text("hello"))), notices=notices)
    shell.subscribe(lambda e: events.append(e) if isinstance(e, Reloaded) else None)
    await shell.submit("hi")
    assert (await shell.submit("/version")).output == "v1"
    write_extension(folder, "ver", V1.replace('"v1"', '"v2"'))
    write_extension(folder, "extra", 'def register(pi):\n    pi.ui.set_footer("x", "extra here")\n')
    skill = project / ".pi" / "skills" / "fresh" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: fresh\ndescription: A new skill.\n---\nDo it.")
    (project / ".pi" / "prompts").mkdir(parents=True)
    (project / ".pi" / "prompts" / "greet.md").write_text(
        "---\ndescription: Greet\n---\nSay hi to $1"
    )
    (project / "AGENTS.md").write_text("Always be brief.")
    calls: list[str] = []
    shell.reloaders.append(lambda s: calls.append("plugins") or ["plugins: 0"])
    reply_ = await shell.submit("/reload")
    assert reply_.output.startswith("Reloaded: settings")
    assert "1 skills" in reply_.output and "1 prompt templates" in reply_.output
    assert "extensions: extra, ver" in reply_.output or "extensions: ver, extra" in reply_.output
    assert calls == ["plugins"] and events and "plugins: 0" in events[-1].what
    assert (await shell.submit("/version")).output == "v2"
    assert shell.commands.get("skill:fresh") is not None and shell.commands.get("greet") is not None
    assert "Always be brief." in shell.agent.system_prompt
    assert [p.text for p in shell.dialogs.ui_state()] == ["extra here"]
    for _ in range(100):
        if "v1 shut down (reload)" in texts(notices):
            break
        await asyncio.sleep(0.02)
    assert "v1 shut down (reload)" in texts(notices)
    assert [m.role for m in shell.messages] == ["user", "assistant"]  # the conversation stays
    (folder / "extra.py").unlink()
    await shell.submit("/reload")
    assert shell.dialogs.ui_state() == []  # the removed extension's UI went with it


GATE = """
    import asyncio
    from pydantic import BaseModel

    class Args(BaseModel):
        pass

    def register(pi):
        @pi.tool(description="Wait a little", parameters=Args)
        async def slow(args, ctx):
            await asyncio.sleep(0.5)
            return "slow done (VERSION)"
"""


async def test_reload_under_a_live_run_waits_for_it_to_end(project: Path, pi_home: Path) -> None:
    folder = pi_home / "extensions"
    write_extension(folder, "gate", GATE.replace("VERSION", "old"))
    stream = ScriptedStream(
        reply(tool_call("c1", "slow", {})),
        reply(tool_call("c2", "slow", {})),
        reply(text("finished")),
        reply(tool_call("c3", "slow", {})),
        reply(text("again")),
    )
    notices: list[Notice] = []
    shell = shell_with(project, stream, notices=notices)
    run = shell.submit("go")
    while shell.state != "running":
        await asyncio.sleep(0.01)
    write_extension(folder, "gate", GATE.replace("VERSION", "new"))
    answer = await shell.submit("/reload")
    assert answer.output == "Reload deferred: it runs when the current run ends."
    await run
    assert results(shell) == ["slow done (old)", "slow done (old)"]  # the run kept its tools
    for _ in range(200):
        if "Reloaded:" in texts(notices):
            break
        await asyncio.sleep(0.02)
    assert "Reloaded:" in texts(notices)
    await shell.submit("once more")
    assert results(shell)[-1] == "slow done (new)"
