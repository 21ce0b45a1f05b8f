"""The TUI on a session living in the server (``pi attach``)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from pi_cli.server.client.connect import ClientError

if TYPE_CHECKING:
    from pi_cli.server.client.connect import ServerAddress
    from pi_cli.shell import FrontShell


def run_tui_remote(where: ServerAddress, session_id: str) -> int:
    """Run the TUI on the remote session until the user quits (the session goes on)."""
    from pathlib import Path

    from pi_cli.server.client.session import attach_remote
    from pi_cli.tui.app import PiApp
    from pi_cli.tui.keymap import load_user_keymap
    from pi_cli.tui.options import TuiOptions
    from pi_cli.tui.parser import install
    from pi_cli.tui.run import theme_setting
    from pi_cli.tui.terminal import restore_modified_keys

    install()
    keymap, warning = load_user_keymap()

    async def connect() -> FrontShell | str:
        try:
            return await attach_remote(where, session_id, "tui")
        except ClientError as exc:
            return str(exc)

    options = TuiOptions(
        theme=theme_setting(Path.cwd()),
        keymap=keymap,
        warnings=[warning] if warning else [],
        cwd=Path.cwd(),
    )
    app = PiApp(None, options, connect=connect)
    try:
        result = app.run()
    finally:
        restore_modified_keys()
    if app.startup_error:
        print(f"pi: {app.startup_error}", file=sys.stderr, flush=True)
        return 1
    return result if isinstance(result, int) else 0
