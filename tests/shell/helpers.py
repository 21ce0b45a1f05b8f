"""Building shells over a scripted model for the shell extension tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_core import Usage
from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from pi_cli.shell.config.settings import Settings
from tests.agent_core.scripted_stream import Recorder, Response, ScriptedStream


def make_shell(
    cwd: Path,
    *responses: Response,
    settings: Settings | None = None,
    tools: list[str] | None = None,
    persist: bool = True,
    **options: Any,
) -> tuple[CodingAgent, ScriptedStream, Recorder]:
    """A shell in ``cwd`` whose model replays ``responses``; returns (shell, stream, recorder)."""
    stream = ScriptedStream(*responses)
    shell = CodingAgent(
        ShellOptions(
            cwd=cwd,
            stream_fn=stream,
            settings=settings,
            tools=tools,
            persist_session=persist,
            **options,
        )
    )
    recorder = Recorder()
    shell.subscribe(recorder)
    return shell, stream, recorder


def usage(tokens: int) -> Usage:
    """Provider usage reporting ``tokens`` input tokens."""
    return Usage(input=tokens, output=10, total_tokens=tokens + 10)


def notices(recorder: Recorder, level: str | None = None) -> list[str]:
    """Texts of the recorded notices (of ``level`` if given)."""
    return [
        e.text
        for e in recorder.events
        if getattr(e, "type", "") == "notice" and (level is None or e.level == level)
    ]
