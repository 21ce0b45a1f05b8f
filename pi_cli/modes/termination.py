"""SIGTERM and SIGHUP: handled like Esc followed by quit, in every front end.

The first signal aborts whatever the shell is doing (the run's partial answer is saved as an
aborted message, the tools are stopped) and asks the front end to quit; the front end then
shuts down as usual (``shell.aclose()`` stops every process a tool started, the terminal is
restored) and exits with :attr:`ExitCode.TERMINATED` (143) or :attr:`ExitCode.HANGUP` (129).
A repeated signal changes nothing: the shutdown is already bounded.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from contextlib import suppress

from pi_cli.args import ExitCode

EXIT_CODES: dict[signal.Signals, ExitCode] = {
    signal.SIGTERM: ExitCode.TERMINATED,
    signal.SIGHUP: ExitCode.HANGUP,
}


class Termination:
    """The SIGTERM/SIGHUP handlers of one front end.

    Args:
        abort: aborts what the shell is doing (``shell.abort``).
        quit: how the front end leaves (end its input loop, exit the app); it waits for the
            aborted run to end before the shell is closed, so the partial answer is saved.
    """

    def __init__(self, abort: Callable[[], None], quit: Callable[[], None]) -> None:
        self.abort = abort
        self.quit = quit
        self.code: ExitCode | None = None
        """The exit code once a signal arrived."""
        self._loop: asyncio.AbstractEventLoop | None = None

    def install(self) -> Termination:
        """Handle both signals on the running loop (where signals can be handled at all)."""
        loop = asyncio.get_running_loop()
        for sig in EXIT_CODES:
            with suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(sig, self.handle, sig)
                self._loop = loop
        return self

    def uninstall(self) -> None:
        """Give both signals back their default action."""
        if self._loop is not None and not self._loop.is_closed():
            for sig in EXIT_CODES:
                with suppress(NotImplementedError, RuntimeError, ValueError):
                    self._loop.remove_signal_handler(sig)
        self._loop = None

    def handle(self, sig: signal.Signals) -> None:
        """Abort, then quit (public for tests)."""
        if self.code is not None:
            return
        self.code = EXIT_CODES[sig]
        self.abort()
        self.quit()

    def exit_code(self, otherwise: int) -> int:
        """The signal's code if one arrived, else ``otherwise``."""
        return int(self.code) if self.code is not None else otherwise
