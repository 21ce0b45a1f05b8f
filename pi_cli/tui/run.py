"""``run_tui``: the entry point ``pi`` (no prompt, in a terminal) calls."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.launch import LaunchArgs


def run_tui(args: LaunchArgs) -> int:
    """Build the shell, run the app until the user quits; returns the exit code."""
    from pi_cli.modes.common import build_shell

    shell = build_shell(args)
    if isinstance(shell, int):
        return shell
    from pi_cli.tui.app import PiApp, TuiOptions
    from pi_cli.tui.keymap import load_user_keymap
    from pi_cli.tui.parser import install

    install()  # ESC CR -> alt+enter (see parser.py)
    keymap, warning = load_user_keymap()
    app = PiApp(shell, TuiOptions(theme=args.theme, keymap=keymap, warnings=[warning] if warning else []))
    result = app.run()
    return result if isinstance(result, int) else 0
