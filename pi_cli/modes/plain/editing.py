"""``/memory`` in the plain REPL: a file opened in ``$VISUAL`` / ``$EDITOR`` while the input
line is suspended (prompt_toolkit hands the terminal over and redraws the prompt after)."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from prompt_toolkit.application import get_app_session, run_in_terminal

from pi_cli.shell import editor_command


async def open_in_editor(path: Path) -> str | None:
    """Run the editor on ``path``; a problem to show, or ``None``."""
    command = [*editor_command(), str(path)]

    def run() -> int:
        return subprocess.call(command)

    try:
        app = get_app_session().app
        if app is not None and app.is_running:
            code = await run_in_terminal(run, in_executor=True)
        else:
            code = await asyncio.to_thread(run)
    except OSError as exc:
        return f"Cannot run the editor: {exc.strerror or exc}"
    return f"{command[0]} exited with code {code}" if code != 0 else None
