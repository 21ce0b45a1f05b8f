"""Slash-command pickers and the theme command of the TUI.

``/model``, ``/resume``, ``/tree`` and ``/theme`` open pickers (modal screens awaited in a
worker); choosing goes through the same paths as typing: the shell's commands, or
``navigate_to`` for the tree. The app is reached through :class:`PickerHost`, so this module
does not import it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.shell.slash_commands import CommandResult, PickAction, ShellAPI

if TYPE_CHECKING:
    from textual.screen import Screen
    from textual.worker import Worker

    from pi_cli.shell.coding_agent import CodingAgent
    from pi_cli.tui.widgets.editor import Editor


class PickerHost(Protocol):
    """What the pickers use of the app."""

    shell: CodingAgent | None
    pi_themes: dict[str, Any]
    theme: str

    @property
    def editor(self) -> Editor: ...
    def submit_text(self, text: str) -> None: ...
    def switch_theme(self, name: str) -> None: ...
    def notify(self, message: str, *, severity: Any = "information") -> None: ...
    async def push_screen_wait(self, screen: Screen[Any]) -> Any: ...
    def run_worker(
        self, work: Coroutine[Any, Any, None], *, group: str = "default", exit_on_error: bool = True
    ) -> Worker[None]: ...


def open_picker(host: PickerHost, action: PickAction) -> None:
    """Open the picker a command result asks for (in a worker: the screen is awaited)."""
    pickers: dict[PickAction, Callable[[PickerHost], Coroutine[Any, Any, None]]] = {
        "pick_model": pick_model,
        "pick_session": pick_session,
        "pick_tree": pick_tree,
        "pick_theme": pick_theme,
    }
    host.run_worker(pickers[action](host), group="picker", exit_on_error=False)


async def pick_model(host: PickerHost) -> None:
    """Choose a model; the choice runs as ``/model spec``."""
    from pi_cli.tui.screens.pickers import model_picker

    assert host.shell is not None
    current = host.shell.model_id
    spec = await host.push_screen_wait(model_picker(current))
    if spec and spec != current:
        host.submit_text(f"/model {spec}")


async def pick_session(host: PickerHost) -> None:
    """Choose a session of this project; the choice runs as ``/resume path``."""
    from pi_cli.shell.paths import sessions_dir
    from pi_cli.tui.screens.pickers import session_picker

    shell = host.shell
    assert shell is not None
    current = str(shell.session.path) if shell.session.path else None
    path = await host.push_screen_wait(session_picker(sessions_dir(shell.cwd), current))
    if path:
        host.submit_text(f"/resume {path}")


async def pick_tree(host: PickerHost) -> None:
    """Choose an entry of the session tree and continue from it."""
    from pi_cli.tui.screens.pickers import tree_picker

    shell = host.shell
    assert shell is not None
    entries = shell.tree_entries()
    if not entries:
        host.notify("Nothing in this session yet.")
        return
    entry_id = await host.push_screen_wait(tree_picker(entries))
    if entry_id:
        navigate_tree(host, entry_id)


def navigate_tree(host: PickerHost, entry_id: str) -> None:
    """Continue from ``entry_id``; a chosen prompt goes back into the editor, to edit and resend."""
    from pi_cli.shell.session_store import SessionError

    assert host.shell is not None
    try:
        text = host.shell.navigate_to(entry_id)  # emits SessionChanged: the transcript is redrawn
    except SessionError as exc:
        host.notify(str(exc), severity="error")
        return
    if text:
        host.editor.set_text(text)


async def pick_theme(host: PickerHost) -> None:
    """Choose a colour theme."""
    from pi_cli.tui.screens.pickers import theme_picker

    name = await host.push_screen_wait(theme_picker(sorted(host.pi_themes), host.theme))
    if name:
        host.switch_theme(name)


def theme_command(host: PickerHost) -> Callable[[ShellAPI, str], Awaitable[CommandResult]]:
    """The handler of ``/theme [name]`` (registered by the TUI into the shell's commands)."""

    async def handler(shell: ShellAPI, args: str) -> CommandResult:
        if not args:
            return CommandResult(action="pick_theme", output=f"Theme: {host.theme}")
        if args not in host.pi_themes:
            themes = ", ".join(host.pi_themes)
            return CommandResult(output=f"Unknown theme {args!r}. Themes: {themes}", error=True)
        host.switch_theme(args)
        return CommandResult(output=f"Theme set to {args}")

    return handler
