"""SIGTERM and SIGHUP in the TUI: abort, let the aborted run end (its partial answer is saved),
exit; unmounting closes the shell (the tools' processes stop) and Textual restores the terminal.
"""

from __future__ import annotations

import asyncio
from contextlib import suppress
from typing import TYPE_CHECKING

from pi_cli.modes.termination import Termination

if TYPE_CHECKING:
    from pi_cli.tui.app import PiApp

SETTLE_S = 5.0
"""Longest wait for the aborted run to end before the app exits anyway."""


def install_termination(app: PiApp) -> Termination:
    """Install the handlers on the app's loop (call from ``on_mount``)."""

    def abort() -> None:
        if app.shell is not None:
            app.shell.abort()

    async def leave() -> None:
        if app.shell is not None:
            with suppress(TimeoutError):
                await asyncio.wait_for(app.shell.wait_idle(), SETTLE_S)
        app.exit(termination.exit_code(0))

    def quit() -> None:  # noqa: A001
        app.run_worker(leave(), group="terminate")

    termination = Termination(abort, quit)
    return termination.install()
