"""SIGTERM and SIGHUP in the TUI: abort, let the aborted run end (its partial answer is saved),
exit; unmounting closes the shell (the tools' processes stop) and Textual restores the terminal.

A hang-up whose terminal is really gone (a closed window, a dropped ssh, a killed tmux) skips
Textual's teardown, which nobody can see and which took seconds with a long transcript (every
widget unmounted): the shell is closed (tools, process helper, sandbox, MCP servers stopped,
the session on disk) and the process ends at once with 129.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from contextlib import suppress
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.args import ExitCode
from pi_cli.modes.termination import Termination

if TYPE_CHECKING:
    from pi_cli.shell import FrontShell


class TerminatingApp(Protocol):
    """What the handlers use of the app (not imported: no cycle)."""

    shell: FrontShell | None

    def exit(self, result: Any = None, return_code: int = 0) -> None: ...
    def run_worker(self, work: Coroutine[Any, Any, None], *, group: str = ...) -> Any: ...


SETTLE_S = 5.0
"""Longest wait for the aborted run to end before the app exits anyway."""


def install_termination(app: TerminatingApp) -> Termination:
    """Install the handlers on the app's running loop (from its ``on_mount``)."""

    def abort() -> None:
        if app.shell is not None and not app.shell.remote:  # a server's run goes on
            app.shell.abort()

    async def leave() -> None:
        if app.shell is not None and not app.shell.remote:
            with suppress(TimeoutError):
                await asyncio.wait_for(app.shell.wait_idle(), SETTLE_S)
        code = termination.exit_code(0)
        if termination.code is ExitCode.HANGUP and _terminal_gone(app):
            await _leave_now(app, code)
        app.exit(code, return_code=code)

    def quit() -> None:
        try:
            app.run_worker(leave(), group="terminate")
        except Exception:  # noqa: BLE001 - the app is still starting: just leave
            code = termination.exit_code(0)
            app.exit(code, return_code=code)

    termination = Termination(abort, quit)
    return termination.install()


def _terminal_gone(app: TerminatingApp) -> bool:
    driver = getattr(app, "_driver", None)
    alive = getattr(driver, "terminal_alive", None)
    return callable(alive) and not alive()


async def _leave_now(app: TerminatingApp, code: int) -> None:
    """Close the shell (bounded) and end the process: the terminal is gone."""
    if app.shell is not None:
        with suppress(Exception):
            await asyncio.wait_for(app.shell.aclose(), SETTLE_S)
    os._exit(code)
