"""Ctrl+G: edit the prompt in ``$VISUAL`` / ``$EDITOR`` (the app is suspended meanwhile)."""

from __future__ import annotations

import os
import subprocess
import tempfile
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from pi_cli.shell import editor_command
from pi_cli.tui.host import TuiHost


class EditorHost(TuiHost, Protocol):
    """The app as the external editor needs it: its editor, and handing the terminal over."""

    def suspend(self) -> AbstractContextManager[None]: ...


def edit_text(app: EditorHost, text: str) -> tuple[str | None, str | None]:
    """(the edited text, or ``None`` if unchanged/failed; a problem to show, or ``None``).

    Runs the editor on a temporary ``.md`` file with the terminal handed over to it
    (``App.suspend``); where the app cannot suspend (headless tests) it runs without a tty.
    """
    handle, name = tempfile.mkstemp(prefix="pi-prompt-", suffix=".md")
    path = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        problem = run_editor(app, path)
        if problem is not None:
            return None, f"{problem}; the prompt is unchanged."
        edited = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return None, f"Cannot run the editor: {exc.strerror or exc}"
    finally:
        path.unlink(missing_ok=True)
    edited = edited[:-1] if edited.endswith("\n") else edited  # editors add a final newline
    return (edited if edited != text else None), None


def run_editor(app: EditorHost, path: Path) -> str | None:
    """Run the editor on ``path`` with the terminal handed over (``App.suspend``; without a
    tty where the app cannot suspend: headless tests). A problem to show, or ``None``.

    Raises OSError when the editor cannot start."""
    from textual.app import SuspendNotSupported

    command = [*editor_command(), str(path)]
    try:
        with app.suspend():
            code = subprocess.call(command)
    except SuspendNotSupported:
        code = subprocess.call(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    return f"{command[0]} exited with code {code}" if code != 0 else None


def edit_file(app: EditorHost, path: Path) -> None:
    """``/memory``: open ``path`` in the editor (the shell reads it again before the next
    input); a failure is shown."""
    try:
        problem = run_editor(app, path)
    except OSError as exc:
        problem = f"Cannot run the editor: {exc.strerror or exc}"
    if problem:
        app.notify(problem, severity="warning")


def edit_prompt(app: EditorHost) -> None:
    """Ctrl+G: the editor's text through ``$EDITOR`` and back."""
    edited, problem = edit_text(app, app.editor.text)
    if problem:
        app.notify(problem, severity="warning")
    elif edited is not None:
        app.editor.set_text(edited)
