"""What an extension prints becomes a notice, cleaned of escape sequences.

An extension's ``print`` (or a traceback it writes to stderr) must not reach the terminal raw
(escape sequences could clear the screen, retitle the window, write the clipboard) nor corrupt
pi's own output (JSON lines in RPC and JSON mode). While extensions exist, ``sys.stdout`` and
``sys.stderr`` are wrapped: text written from an extension's thread is collected line by line and
shown as a notice naming the extension (:func:`~pi_cli.shell.text.terminal.clean` first); text
from anywhere else passes through untouched.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TextIO

from pi_cli.shell.text.terminal import clean

MAX_LINE = 2000
Capture = Callable[[str, str], None]
"""(line, ``stdout``/``stderr``) -> shown."""
_CAPTURES: dict[int, Capture] = {}


class Captured:
    """A stream that diverts the writes of extension threads (see the module doc)."""

    def __init__(self, real: TextIO, name: str) -> None:
        self.real = real
        self.name = name
        self._partial: dict[int, str] = {}

    def write(self, text: str) -> int:
        """Write, or collect when an extension's thread writes."""
        ident = threading.get_ident()
        capture = _CAPTURES.get(ident)
        if capture is None:
            return self.real.write(text)
        buffered = self._partial.pop(ident, "") + str(text)
        *lines, rest = buffered.split("\n")
        if len(rest) > MAX_LINE:
            lines.append(rest)
            rest = ""
        if rest:
            self._partial[ident] = rest
        for line in lines:
            shown = clean(line)[:MAX_LINE]
            if shown.strip():
                capture(shown, self.name)
        return len(text)

    def flush(self) -> None:
        """Flush the real stream."""
        self.real.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def install() -> None:
    """Wrap ``sys.stdout`` and ``sys.stderr`` (once; a wrapped stream stays as it is)."""
    if not isinstance(sys.stdout, Captured):
        sys.stdout = Captured(sys.stdout, "stdout")
    if not isinstance(sys.stderr, Captured):
        sys.stderr = Captured(sys.stderr, "stderr")


def capture_thread(ident: int, capture: Capture) -> None:
    """Divert what the thread ``ident`` writes to ``capture``."""
    _CAPTURES[ident] = capture


def release_thread(ident: int) -> None:
    """Stop diverting the thread ``ident``."""
    _CAPTURES.pop(ident, None)
