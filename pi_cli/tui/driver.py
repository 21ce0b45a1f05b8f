"""Textual's Linux driver for a terminal that can vanish (a closed window, a dropped ssh, a
killed tmux server).

On a hang-up the kernel sends SIGHUP and then SIGCONT. Textual answers SIGCONT by resuming
application mode: a new writer thread whose first write to the dead terminal fails (EIO), after
which its bounded queue fills and closing the driver waits on it forever — pi would outlive its
terminal. This driver does not resume on a terminal that is gone, drops writes once the writer
thread has died, and closes without waiting on a dead one, so pi exits (129) as it should.
"""

from __future__ import annotations

import termios

from textual.drivers.linux_driver import LinuxDriver


class PiDriver(LinuxDriver):
    """:class:`LinuxDriver` that survives losing its terminal."""

    def terminal_alive(self) -> bool:
        """The terminal still answers (a hung-up one fails every call with EIO)."""
        try:
            termios.tcgetattr(self.fileno)
        except (termios.error, OSError):
            return False
        return True

    def _writer_dead(self) -> bool:
        writer = self._writer_thread
        return writer is not None and not writer.is_alive()

    def resume_application_mode(self) -> None:
        """Resume after Ctrl+Z / fg, never onto a terminal that has gone."""
        if self.terminal_alive():
            super().resume_application_mode()

    def write(self, data: str) -> None:
        """Queue ``data`` for the terminal; nothing once the writer has died on it."""
        if not self._writer_dead():
            super().write(data)

    def close(self) -> None:
        """Stop the writer (a dead one has nothing left to flush)."""
        if not self._writer_dead():
            super().close()
