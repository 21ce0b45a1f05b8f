"""Shells with a manual clock for the schedules' tests (a scripted model, a session file)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from tests.agent_core.scripted_stream import ScriptedStream
from tests.fakes.clock import ManualClock


def make_shell(
    cwd: Path,
    stream: ScriptedStream,
    clock: ManualClock,
    events: list[Any] | None = None,
    **options: Any,
) -> CodingAgent:
    """A shell whose schedules run on ``clock``; subscribing ``events`` starts its timer."""
    options.setdefault("approvals", "interactive")
    shell = CodingAgent(ShellOptions(cwd=cwd, stream_fn=stream, **options))
    shell.schedules.clock = clock
    shell.subscribe(events.append if events is not None else lambda event: None)
    return shell


def schedule_entries(shell: CodingAgent) -> list[dict[str, Any]]:
    """The ``schedule`` entries of the session file."""
    path = shell.session.path
    assert path is not None
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [e for e in lines if e.get("type") == "schedule"]
