"""The TypeScript pi's examples for the newer APIs, rewritten in Python (``examples/extensions``),
checked to do what pi-ts's do: ``pirate.ts`` (``before_agent_start`` on the system prompt),
``event-bus.ts`` (``pi.events``), ``titlebar-spinner.ts`` (``set_title`` while a run goes on)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from pi_cli.shell import Notice, UiChanged
from tests.agent_core.scripted_stream import ScriptedStream, reply, text
from tests.shell.extensions.helpers import shell_with, texts

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "extensions"


def use(pi_home: Path, *names: str) -> None:
    files = [str(EXAMPLES / f"{name}.py") for name in names]
    (pi_home / "settings.json").write_text(json.dumps({"extensions": files}))


async def until(check: object) -> None:
    for _ in range(1000):  # notifications run on the extension's thread, not waited for
        if check():  # type: ignore[operator]
            return
        await asyncio.sleep(0.01)


async def test_pirate_mode_changes_the_system_prompt_while_on(project: Path, pi_home: Path) -> None:
    use(pi_home, "pirate")
    notices: list[Notice] = []
    stream = ScriptedStream(reply(text("Arrr")), reply(text("plain")))
    shell = shell_with(project, stream, notices=notices)
    await shell.submit("/pirate")
    assert "Arrr! Pirate mode enabled!" in texts(notices)
    await shell.submit("hello")
    assert "You are now in PIRATE MODE" in stream.contexts[0].system_prompt
    await shell.submit("/pirate")
    await shell.submit("hello")
    assert "PIRATE MODE" not in stream.contexts[1].system_prompt
    await shell.aclose()


async def test_event_bus_notifies_at_start_and_on_emit(project: Path, pi_home: Path) -> None:
    use(pi_home, "event_bus")
    notices: list[Notice] = []
    shell = shell_with(project, ScriptedStream(), notices=notices)
    await shell.submit("/emit ahoy")
    await until(lambda: "Event from /emit: ahoy" in texts(notices))
    await until(lambda: "Event from event-bus-example: Session started" in texts(notices))
    assert "Event from /emit: ahoy" in texts(notices)
    assert "Event from event-bus-example: Session started" in texts(notices)
    await shell.aclose()


async def test_titlebar_spinner_spins_during_a_run_and_settles(
    project: Path, pi_home: Path
) -> None:
    use(pi_home, "titlebar_spinner")
    titles: list[str | None] = []
    stream = ScriptedStream(reply(text("working"), hang=True))
    shell = shell_with(project, stream)
    shell.subscribe(lambda e: titles.append(e.text) if isinstance(e, UiChanged) else None)
    run = shell.submit("work")
    await stream.hanging.wait()
    base = f"π - {project.name}"
    await until(lambda: len({t for t in titles if t != base}) >= 3)  # frames while it runs
    spinning = [t for t in titles if t != base]
    assert len(set(spinning)) >= 3 and all(t and t[0] in "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏" for t in spinning)
    shell.abort()
    await run
    await until(lambda: titles[-1] == base)
    assert titles[-1] == base  # settled once the run ended
    await shell.aclose()
