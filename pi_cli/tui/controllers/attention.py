"""Tell the user when pi needs them while the terminal is not focused: a run ended, or an
approval waits. A desktop notification where the terminal has one (OSC 777, OSC 9, OSC 99),
the bell otherwise; the ``notifications`` setting picks ``auto``, ``bell`` or ``off``.

Focus comes from the terminal's focus reports (``CSI ?1004``, which Textual turns on): a
terminal without them counts as focused, so nothing rings at someone looking at pi.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pi_cli.tui.messages import clean
from pi_cli.tui.terminal import write_raw

if TYPE_CHECKING:
    from textual.app import App

BEL = "\x07"


def _osc_safe(text: str) -> str:
    return clean(text).replace(";", ",")[:200]


def desktop_sequence(title: str, body: str, env: Mapping[str, str]) -> str | None:
    """The notification sequence this terminal understands (``None``: only the bell)."""
    program = env.get("TERM_PROGRAM", "")
    term = env.get("TERM", "")
    title, body = _osc_safe(title), _osc_safe(body)
    if env.get("KITTY_WINDOW_ID") or term == "xterm-kitty":
        return f"\x1b]99;i=1:d=0;{title}\x1b\\\x1b]99;i=1:d=1:p=body;{body}\x1b\\"
    if program in ("iTerm.app", "WezTerm", "ghostty") or env.get("WT_SESSION"):
        return f"\x1b]9;{title}: {body}{BEL}"
    if env.get("VTE_VERSION") or term.startswith(("foot", "rxvt")) or env.get("KONSOLE_VERSION"):
        return f"\x1b]777;notify;{title};{body}{BEL}"
    return None


def notification(title: str, body: str, mode: str, env: Mapping[str, str]) -> str:
    """What to write for ``mode`` (``auto``, ``bell``, ``off``): "" for nothing."""
    if mode == "off":
        return ""
    sequence = desktop_sequence(title, body, env) if mode == "auto" else None
    if sequence is None:
        return BEL
    if env.get("TMUX"):
        # Through tmux's passthrough (needs allow-passthrough on), plus the bell tmux shows.
        return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\" + BEL
    return sequence


class Attention:
    """Rings or notifies through the app's output (see the module docstring)."""

    def __init__(
        self, app: App[Any], mode: str = "auto", env: Mapping[str, str] | None = None
    ) -> None:
        self.app = app
        self.mode = mode
        self.env = dict(os.environ) if env is None else dict(env)
        self.sent: list[str] = []  # what was written (tests)

    def request(self, body: str, title: str = "pi") -> bool:
        """Notify when the terminal is not focused; True if something was written."""
        if getattr(self.app, "app_focus", True):
            return False
        data = notification(title, body, self.mode, self.env)
        if not data:
            return False
        self.sent.append(data)
        write_raw(self.app, data)
        return True
