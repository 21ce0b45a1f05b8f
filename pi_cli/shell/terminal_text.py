"""Text from the model, tools or files, made safe to print on a terminal.

Escape sequences could write the clipboard (OSC 52), retitle the window, clear the screen or
move the cursor to overwrite what the user reads; they are removed whole (CSI, OSC, DCS and
two-byte ESC forms), and so is every other control character but tab and newline (a bare
``\\r`` would let text overwrite the line it is on).
"""

from __future__ import annotations

import re

_SEQUENCES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b[\]P^_X][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC, DCS, PM, APC, SOS (to BEL or ST)
    r"|\x1b[ -/]*[0-~]"  # two-byte and nF escapes
    r"|[\x80-\x9f]"  # C1 controls (0x9b is CSI, 0x9d OSC on some terminals)
)
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def clean(text: str) -> str:
    """``text`` without terminal control sequences or control characters (tab, newline kept)."""
    if not text:
        return text
    text = text.replace("\r\n", "\n")
    return _CONTROLS.sub("", _SEQUENCES.sub("", text))
