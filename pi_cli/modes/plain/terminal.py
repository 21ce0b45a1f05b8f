"""The plain REPL's terminal: output above the input line in order, its real width, and a prompt
that can be interrupted on any terminal.

prompt-toolkit's ``patch_stdout`` writes from a thread of its own, up to 0.2 s late: a question
asked meanwhile (an approval) would be printed *before* what it is about. :class:`TerminalWriter`
writes on the event loop instead, everything printed in one loop iteration as one repaint, and
:meth:`TerminalWriter.drain` waits until all of it is on the screen.

A ``TERM=dumb`` terminal (Emacs' shell, a serial console, ``script``) has no cursor control: it is
not a narrow one. rich assumes 80 columns there, and prompt-toolkit's dumb prompt runs an
application of its own that the REPL would otherwise never see (so an approval could not
interrupt the input line). Both are put right here.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TextIO, cast

from prompt_toolkit import PromptSession
from prompt_toolkit.application import Application, get_app_session, run_in_terminal
from prompt_toolkit.formatted_text import AnyFormattedText
from prompt_toolkit.output import Output
from rich.console import Console, ConsoleDimensions

from pi_cli.shell import write_all


def is_dumb() -> bool:
    """The terminal has no cursor control (``TERM=dumb`` or ``unknown``)."""
    return os.environ.get("TERM", "").lower() in ("dumb", "unknown")


class LiveWidthConsole(Console):
    """A console that wraps at the terminal's real width, read at each print (a resize is
    honoured at the next line printed); rich's own size on any other terminal."""

    @property
    def size(self) -> ConsoleDimensions:
        """The terminal's size (``COLUMNS``/``LINES`` win, as rich reads them)."""
        if not self.is_dumb_terminal or self._width is not None:
            return super().size
        columns, lines = shutil.get_terminal_size((80, 25))
        return ConsoleDimensions(max(columns, 1), max(lines, 1))

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        self._width, self._height = new_size


class ReplSession(PromptSession[str]):
    """A prompt session whose dumb-terminal prompt runs the same ``pre_run`` callback as the
    full one, so the REPL holds the running application either way (to interrupt it for an
    approval, or to print a fresh prompt when a run ends)."""

    on_dumb_start: Callable[[Application[Any]], None] | None = None

    @contextmanager
    def _dumb_prompt(self, message: AnyFormattedText = "") -> Iterator[Application[str]]:
        self.app.pre_run_callables.clear()  # added for the full prompt, which does not run
        with super()._dumb_prompt(message) as app:
            callback = self.on_dumb_start
            if callback is not None:
                app.pre_run_callables.append(lambda: callback(app))
            yield app


class TerminalWriter:
    """``sys.stdout`` (and ``sys.stderr``) while the REPL runs: text goes above the input line,
    complete lines at a time, in the order written.

    Args:
        output: prompt-toolkit's output (the real terminal).
        loop: the REPL's event loop (writes from other threads are handed to it).
    """

    def __init__(self, output: Output, loop: asyncio.AbstractEventLoop) -> None:
        self._output = output
        self._loop = loop
        self._lock = threading.Lock()
        self._partial: list[str] = []  # text after the last newline
        self._pending: list[str] = []  # whole lines not yet handed to the terminal
        self._scheduled = False
        self._last: asyncio.Future[None] | None = None  # the latest write still under way

    # file protocol (what rich and logging use)
    def write(self, data: str) -> int:
        """Queue ``data``; complete lines are written at the end of this loop iteration."""
        with self._lock:
            if "\n" not in data:
                self._partial.append(data)
                return len(data)
            head, _, rest = data.rpartition("\n")
            self._pending.append("".join([*self._partial, head, "\n"]))
            self._partial = [rest] if rest else []
            self._schedule()
        return len(data)

    def flush(self) -> None:
        """Queue a partial line too."""
        with self._lock:
            if self._partial:
                self._pending.append("".join(self._partial))
                self._partial = []
                self._schedule()

    def isatty(self) -> bool:
        """Whether the real output is a terminal (rich decides on colours with it)."""
        stdout = self._output.stdout
        return stdout is not None and stdout.isatty()

    def fileno(self) -> int:
        """The real output's descriptor."""
        return self._output.fileno()

    @property
    def encoding(self) -> str:
        """The real output's encoding."""
        return self._output.encoding()

    errors = "strict"

    def _schedule(self) -> None:
        if self._scheduled:
            return
        self._scheduled = True
        try:
            on_loop = asyncio.get_running_loop() is self._loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            self._loop.call_soon(self._hand_over)
        else:
            self._loop.call_soon_threadsafe(self._hand_over)

    def _hand_over(self) -> None:
        with self._lock:
            text = "".join(self._pending)
            self._pending.clear()
            self._scheduled = False
        if text:
            self._last = asyncio.ensure_future(self._write(text, self._last))

    async def _write(self, text: str, previous: asyncio.Future[None] | None) -> None:
        if previous is not None:
            with contextlib.suppress(Exception):
                await previous  # in order

        def write() -> None:
            self._output.flush()  # what prompt-toolkit queued (erasing the prompt) goes first
            try:
                fd = self._output.fileno()
            except (OSError, ValueError, NotImplementedError):  # no descriptor (a test double)
                self._output.write_raw(text)
                self._output.flush()
                return
            write_all(fd, text.encode(self._output.encoding() or "utf-8", "replace"))

        app = get_app_session().app
        if app is not None and app.is_running:
            await run_in_terminal(write, in_executor=False)  # erase the prompt, write, redraw
        else:
            write()

    async def drain(self) -> None:
        """Wait until everything written so far is on the terminal."""
        self.flush()
        self._hand_over()
        if self._last is not None:
            with contextlib.suppress(Exception):
                await self._last


@contextmanager
def writing_above_prompt(output: Output) -> Iterator[TerminalWriter]:
    """``sys.stdout`` and ``sys.stderr`` go through a :class:`TerminalWriter` (call on the loop)."""
    writer = TerminalWriter(output, asyncio.get_running_loop())
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = cast(TextIO, writer)
    try:
        yield writer
    finally:
        sys.stdout, sys.stderr = saved
        writer.flush()
        writer._hand_over()
