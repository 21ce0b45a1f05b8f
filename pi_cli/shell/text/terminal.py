"""Text from the model, tools, sessions or repositories, made safe to print on a terminal.

The one sanitizer of every line pi prints: the modes, the TUI's text and every CLI listing
(``pi rewind``, ``pi mcp``, ``pi trust``, ``--export``, ``--list-models``, errors) go through
:func:`clean`, :func:`one_line` or :func:`say` (a test holds the CLI modules to it).

Escape sequences could write the clipboard (OSC 52), retitle the window, clear the screen or
move the cursor to overwrite what the user reads; they are removed whole (CSI, OSC, DCS and
two-byte ESC forms), and so is every other control character but tab and newline (a bare
``\\r`` would let text overwrite the line it is on), every C1 control (``\\x9b`` is CSI on
some terminals) and the bidirectional overrides and isolates that make text read differently
from what it is (``\\u202e``: "Trojan Source").
"""

from __future__ import annotations

import os
import re
import select
import sys

_SEQUENCES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b[\]P^_X][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC, DCS, PM, APC, SOS (to BEL or ST)
    r"|\x1b[ -/]*[0-~]"  # two-byte and nF escapes
    r"|[\x80-\x9f]"  # C1 controls (0x9b is CSI, 0x9d OSC on some terminals)
)
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")
_LINE_BREAKS = str.maketrans({"\n": "\\n", "\t": " ", "\u2028": "\\n", "\u2029": "\\n"})


def clean(text: str) -> str:
    """``text`` without terminal control sequences or control characters (tab, newline kept)."""
    if not text:
        return text
    text = text.replace("\r\n", "\n")
    return _CONTROLS.sub("", _SEQUENCES.sub("", text))


def one_line(text: object) -> str:
    """A name or a field for a one-line listing: :func:`clean`, line breaks shown as ``\\n``."""
    return clean(str(text)).translate(_LINE_BREAKS)


_JSON_HIDDEN = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def json_text(value: object, indent: int | None = None) -> str:
    """``value`` as JSON that is safe on a terminal: control characters JSON leaves raw (DEL,
    C1, bidi overrides, U+2028/9) are written as ``\\uXXXX`` escapes (the same JSON value)."""
    import json

    text = json.dumps(value, ensure_ascii=False, indent=indent, default=str)
    return _JSON_HIDDEN.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def say(text: object = "", *, err: bool = False) -> None:
    """Print ``text`` (cleaned) and a newline to stdout, or stderr; flushed, all of it."""
    stream = sys.stderr if err else sys.stdout
    line = clean(str(text)) + "\n"
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):  # an in-memory stream (io.UnsupportedOperation)
        stream.write(line)
        stream.flush()
        return
    stream.flush()  # what was written through the stream goes first
    write_all(fd, line.encode(stream.encoding or "utf-8", stream.errors or "strict"))


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd``.

    Python's text streams ignore a short write of their binary layer, and under
    ``PYTHONUNBUFFERED`` that layer is one ``write(2)``, which a signal (a child's SIGCHLD) cuts
    short: the rest of a long answer was lost. A short write goes on from where it stopped; a
    descriptor another process left non-blocking (flags are shared through an inherited
    terminal or pipe) waits until it can take more.
    """
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            select.select([], [fd], [])
