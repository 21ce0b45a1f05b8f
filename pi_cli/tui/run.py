"""``run_tui``: the entry point ``pi`` (no prompt, in a terminal) calls.

The first frame is drawn before the shell exists: building it (agent_core, providers, tools,
settings, session) costs about as much as importing Textual, so it runs in a thread
right after the first refresh and the app attaches it when ready.
"""

from __future__ import annotations

import json
import sys
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pi_cli.args import LaunchArgs
    from pi_cli.shell import FrontShell


def theme_setting(cwd: Path) -> str | None:
    """The ``theme`` setting, read before the shell loads, so the first frame has the right colours.

    The full settings (validated, with clear errors) are loaded with the shell.
    """
    from pi_cli.shell import pi_home

    theme = None
    for path in (pi_home() / "settings.json", cwd / ".pi" / "settings.json"):
        try:
            value = json.loads(path.read_text(encoding="utf-8")).get("theme")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(value, str):
            theme = value
    return theme


def run_tui(args: LaunchArgs) -> int:
    """Run the app until the user quits; returns the exit code."""
    from pi_cli.tui.app import PiApp
    from pi_cli.tui.keymap import load_user_keymap
    from pi_cli.tui.options import TuiOptions
    from pi_cli.tui.parser import install
    from pi_cli.tui.terminal import restore_modified_keys

    install()  # ESC CR -> alt+enter (see parser.py)
    keymap, warning = load_user_keymap()

    def factory() -> FrontShell | str:  # mypy: the CodingAgent is a FrontShell
        from pi_cli.modes.common import try_build_shell
        from pi_cli.shell import check_trust, record_trust
        from pi_cli.tui.controllers.approvals import ask_trust

        if args.shell.trust is None:  # asked before the shell exists: it decides what loads
            check = check_trust(args.cwd)
            if check.needs_question:
                # mypy cannot solve ``T | Awaitable[T]`` in Textual's signature for a coroutine.
                trusted: bool = app.call_from_thread(ask_trust, app, check)  # type: ignore[arg-type]
                record_trust(check.root, trusted, check.digest)
        args.shell.approvals = "interactive"
        return try_build_shell(args)

    options = TuiOptions(
        theme=args.theme or theme_setting(args.cwd),
        keymap=keymap,
        warnings=[warning] if warning else [],
        cwd=args.cwd,
        startup_inputs=["/resume"] if args.resume else [],
        background=args.background,
    )
    app = PiApp(None, options, shell_factory=factory)
    try:
        result = app.run()
    finally:
        restore_modified_keys()
    if app.startup_error:
        print(f"pi: {app.startup_error}", file=sys.stderr, flush=True)
        return 2
    for line in (app.inputs.quit_note, resume_hint(app.shell)):
        if line is not None:
            with suppress(OSError):  # the terminal may be gone (a hang-up): the code still counts
                print(line, flush=True)
    return result if isinstance(result, int) else 0


def resume_hint(shell: FrontShell | None) -> str | None:
    """``Resume this session with: pi --session <id>`` when the session was saved."""
    if shell is None:
        return None
    session = shell.session
    path = session.path
    if path is None or not shell.messages or not path.exists():
        return None
    return f"Resume this session with: pi --session {session.session_id}  (or pi -c here)"
