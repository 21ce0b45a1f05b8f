"""SIGTERM and SIGHUP in the TUI: abort, let the aborted run end (its partial answer is saved),
exit; unmounting closes the shell (the tools' processes stop) and Textual restores the terminal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from contextlib import suppress
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.modes.termination import Termination

if TYPE_CHECKING:
    from pi_cli.shell import CodingAgent


class TerminatingApp(Protocol):
    """What the handlers use of the app (not imported: no cycle)."""

    shell: CodingAgent | None

    def exit(self, result: Any = None, return_code: int = 0) -> None: ...
    def run_worker(self, work: Coroutine[Any, Any, None], *, group: str = ...) -> Any: ...


SETTLE_S = 5.0
"""Longest wait for the aborted run to end before the app exits anyway."""


def install_termination(app: TerminatingApp) -> Termination:
    """Install the handlers on the app's running loop (from its ``on_mount``)."""

    def abort() -> None:
        if app.shell is not None:
            app.shell.abort()

    async def leave() -> None:
        if app.shell is not None:
            with suppress(TimeoutError):
                await asyncio.wait_for(app.shell.wait_idle(), SETTLE_S)
        code = termination.exit_code(0)
        app.exit(code, return_code=code)

    def quit() -> None:
        try:
            app.run_worker(leave(), group="terminate")
        except Exception:  # noqa: BLE001 - the app is still starting: just leave
            code = termination.exit_code(0)
            app.exit(code, return_code=code)

    termination = Termination(abort, quit)
    return termination.install()
