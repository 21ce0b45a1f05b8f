"""Writing extensions into a fake ``PI_HOME`` and building shells that load them."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from agent_core import ToolResultMessage
from pi_cli.shell import CodingAgent, Notice, ShellOptions
from tests.agent_core.scripted_stream import ScriptedStream


def write_extension(folder: Path, name: str, source: str) -> Path:
    """``folder/name.py`` holding ``source`` (dedented)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(source).lstrip())
    return path


def shell_with(
    cwd: Path,
    stream: ScriptedStream | None = None,
    *,
    notices: list[Notice] | None = None,
    **options: Any,
) -> CodingAgent:
    """A shell on ``stream`` with pi's file tools; its notices (start-up ones too) collected."""
    options.setdefault("persist_session", False)
    options.setdefault("tools", ["read", "write", "edit"])
    shell = CodingAgent(ShellOptions(cwd=cwd, stream_fn=stream or ScriptedStream(), **options))
    if notices is not None:
        shell.subscribe(lambda e: notices.append(e) if isinstance(e, Notice) else None)
    return shell


def results(shell: CodingAgent) -> list[str]:
    """The tool results' texts, in order."""
    return [m.text for m in shell.messages if isinstance(m, ToolResultMessage)]


def texts(notices: list[Notice]) -> str:
    """Every notice's text, one a line."""
    return "\n".join(n.text for n in notices)
