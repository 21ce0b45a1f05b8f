"""Recognise ESC CR (Alt+Enter in tmux, xterm and most terminals) as ``alt+enter``.

Textual 8.2.8's ``XTermParser`` maps ``"\\x1b\\r"`` to plain ``enter``: when the sequence arrives
whole it matches no key and the parser keeps reading; when the escape delay expires it is
reissued as "alt + CR", but CR maps to the ``Keys.Enter`` tuple, which ignores the alt flag. An
unhandled Alt+Enter would therefore silently *steer* instead of queueing a follow-up.

The fix is one override of ``_sequence_to_key_events``: ESC CR (both paths) becomes
``alt+enter``. :func:`install` points the Linux driver at this parser; the driver looks the
class up at input-thread start, so calling it before ``App.run`` is enough.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual import events
from textual._xterm_parser import XTermParser

ALT_ENTER_SEQUENCE = "\x1b\r"


class PiXTermParser(XTermParser):
    """``XTermParser`` that reports ESC CR as ``alt+enter``."""

    def _sequence_to_key_events(self, sequence: str, alt: bool = False) -> Iterable[events.Key]:
        # Whole sequence in one read (the usual case) or CR reissued after ESC timed out.
        if sequence == ALT_ENTER_SEQUENCE or (alt and sequence == "\r"):
            yield events.Key("alt+enter", None)
            return
        yield from super()._sequence_to_key_events(sequence, alt)


def install() -> None:
    """Make Textual's Linux driver use :class:`PiXTermParser` (idempotent)."""
    try:
        from textual.drivers import linux_driver
    except ImportError:  # Windows: its driver does not parse VT input this way
        return
    linux_driver.XTermParser = PiXTermParser  # type: ignore[misc]
