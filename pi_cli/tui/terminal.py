"""The terminal around the app: modified Enter keys inside tmux, raw notifications, signals.

Textual asks only for the kitty keyboard protocol. tmux (and xterm) forward Ctrl+Enter and
Shift+Enter as ``CSI 13;5u`` / ``CSI 13;2u`` only to an app that asked for xterm's
*modifyOtherKeys* (``CSI > 4;1 m``), and tmux only with its ``extended-keys`` option on. pi asks
for both and restores the terminal on exit and around a suspend (Ctrl+Z, Ctrl+G).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

    from pi_cli.tui.host import TuiHost
    from pi_cli.tui.signals import TerminatingApp

MODIFY_OTHER_KEYS_ON = "\x1b[>4;1m"
MODIFY_OTHER_KEYS_OFF = "\x1b[>4m"


def write_raw(app: App[Any], data: str) -> bool:
    """Write an escape sequence through the app's output thread (in order with its frames).

    Textual has no public call for this (``copy_to_clipboard`` does the same for OSC 52), so
    its driver is read here, in one place; nothing of it is overridden.
    """
    driver = getattr(app, "_driver", None)
    write = getattr(driver, "write", None)
    if write is None:
        return False
    try:
        write(data)
    except AssertionError:  # not in application mode (shutting down)
        return False
    return True


def enable_modified_keys(app: App[Any]) -> None:
    """Ask for modifyOtherKeys now and again after every resume; restore it around suspends."""
    write_raw(app, MODIFY_OTHER_KEYS_ON)
    app.app_suspend_signal.subscribe(app, lambda _app: write_raw(app, MODIFY_OTHER_KEYS_OFF))
    app.app_resume_signal.subscribe(app, lambda _app: write_raw(app, MODIFY_OTHER_KEYS_ON))


def redraw(app: App[Any] | TuiHost) -> None:
    """Paint the whole screen again (Ctrl+L / F5, and after ``fg``): a new layout pass makes
    the compositor send every row, whatever the terminal shows now."""
    app.screen.refresh(layout=True, repaint=True)


def redraw_after_resume(app: App[Any]) -> None:
    """After Ctrl+Z and ``fg`` (SIGCONT) the terminal shows the shell's lines, not pi's: Textual
    resumes its terminal modes but only repaints what changes next, so pi repaints everything."""
    app.app_resume_signal.subscribe(app, redraw)


def restore_modified_keys() -> None:
    """After the app ended: modifyOtherKeys back to the terminal's default (idempotent)."""
    stream = sys.__stdout__
    if stream is not None and stream.isatty():
        try:
            stream.write(MODIFY_OTHER_KEYS_OFF)
            stream.flush()
        except OSError:
            pass


def exit_on_signals(app: TerminatingApp) -> None:
    """SIGTERM and SIGHUP: like Esc then quit. The run is aborted and may end (its partial
    answer is saved), then the app ends normally, so the terminal is restored (alt screen off,
    mouse reporting off) and the tools are stopped; the exit codes are 143 and 129."""
    from pi_cli.tui.signals import install_termination

    install_termination(app)  # nothing where signals cannot be handled (not the main thread)
