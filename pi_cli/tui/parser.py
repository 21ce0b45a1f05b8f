"""Recognise ESC CR (Alt+Enter in tmux, xterm and most terminals) as ``alt+enter``.

Textual 8.2.8's ``XTermParser`` maps ``"\\x1b\\r"`` to plain ``enter``: when the sequence arrives
whole it matches no key and the parser keeps reading; when the escape delay expires it is
reissued as "alt + CR", but CR maps to the ``Keys.Enter`` tuple, which ignores the alt flag. An
unhandled Alt+Enter would therefore silently *steer* instead of queueing a follow-up.

The fix overrides the parser's public ``feed``: an ESC CR pair in the input becomes
``alt+enter`` before Textual's own parsing sees it (no private method is overridden). Terminals
and tmux write both bytes of the chord at once, so the pair arrives inside one read.
:func:`install` points the Linux driver at this parser; the driver looks the class up at
input-thread start, so calling it before ``App.run`` is enough.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from textual import events
from textual._xterm_parser import XTermParser
from textual.message import Message

ALT_ENTER_SEQUENCE = "\x1b\r"
# xterm's modifyOtherKeys form of a modified key, ``CSI 27;<mods>;<code>~``, rewritten to the
# ``CSI <code>;<mods>u`` form Textual parses (Ctrl+Enter from xterm itself; tmux sends the u form).
_MODIFY_OTHER_KEYS = re.compile("\x1b\\[27;(\\d+);(\\d+)~")


class PiXTermParser(XTermParser):
    """``XTermParser`` that reports ESC CR as ``alt+enter``."""

    def feed(self, data: str) -> Iterable[Message]:
        """Parse ``data``; each ESC CR in it is an ``alt+enter`` key (``""`` still means EOF)."""
        if not data:
            yield from super().feed(data)
            return
        if "\x1b[27;" in data:
            data = _MODIFY_OTHER_KEYS.sub(lambda m: f"\x1b[{m.group(2)};{m.group(1)}u", data)
        while (at := data.find(ALT_ENTER_SEQUENCE)) != -1:
            if at:
                yield from super().feed(data[:at])
            yield events.Key("alt+enter", None)
            data = data[at + len(ALT_ENTER_SEQUENCE) :]
        if data:
            yield from super().feed(data)


def install() -> None:
    """Make Textual's Linux driver use :class:`PiXTermParser` (idempotent)."""
    try:
        from textual.drivers import linux_driver
    except ImportError:  # Windows: its driver does not parse VT input this way
        return
    # Textual's driver names its parser class at module level: replace it there.
    setattr(linux_driver, "XTermParser", PiXTermParser)  # noqa: B010 - not re-exported
