"""Ctrl+G: edit the prompt in ``$VISUAL`` / ``$EDITOR`` (the app is suspended meanwhile)."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from pi_cli.tui.host import TuiHost


class EditorHost(TuiHost, Protocol):
    """The app as the external editor needs it: its editor, and handing the terminal over."""

    def suspend(self) -> AbstractContextManager[None]: ...


def editor_command(env: dict[str, str] | None = None) -> list[str]:
    """The user's editor as argv (``$VISUAL``, then ``$EDITOR``, then ``vi``)."""
    env = dict(os.environ) if env is None else env
    value = env.get("VISUAL") or env.get("EDITOR") or "vi"
    try:
        return shlex.split(value) or ["vi"]
    except ValueError:
        return value.split() or ["vi"]


def edit_text(app: EditorHost, text: str) -> tuple[str | None, str | None]:
    """(the edited text, or ``None`` if unchanged/failed; a problem to show, or ``None``).

    Runs the editor on a temporary ``.md`` file with the terminal handed over to it
    (``App.suspend``); where the app cannot suspend (headless tests) it runs without a tty.
    """
    from textual.app import SuspendNotSupported

    handle, name = tempfile.mkstemp(prefix="pi-prompt-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        command = [*editor_command(), str(path)]
        try:
            with app.suspend():
                code = subprocess.call(command)
        except SuspendNotSupported:
            code = subprocess.call(
                command,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        if code != 0:
            return None, f"{command[0]} exited with code {code}; the prompt is unchanged."
        edited = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return None, f"Cannot run the editor: {exc.strerror or exc}"
    finally:
        path.unlink(missing_ok=True)
    edited = edited[:-1] if edited.endswith("\n") else edited  # editors add a final newline
    return (edited if edited != text else None), None


def edit_prompt(app: EditorHost) -> None:
    """Ctrl+G: the editor's text through ``$EDITOR`` and back."""
    edited, problem = edit_text(app, app.editor.text)
    if problem:
        app.notify(problem, severity="warning")
    elif edited is not None:
        app.editor.set_text(edited)
