"""What the TUI's controllers (input, scrolling, cursor, pickers, queue view...) use of the app.

A protocol, so those modules never import the app (no import cycle, TYPE_CHECKING included);
:class:`~pi_cli.tui.app.PiApp` satisfies it.
"""

from __future__ import annotations

from collections.abc import Coroutine
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from textual.notifications import SeverityLevel
    from textual.screen import Screen, ScreenResultCallbackType, ScreenResultType
    from textual.theme import Theme
    from textual.widget import AwaitMount
    from textual.worker import Worker

    from pi_cli.shell import FrontShell
    from pi_cli.tui.options import TuiOptions
    from pi_cli.tui.widgets.editor import Editor
    from pi_cli.tui.widgets.footer import StatusFooter
    from pi_cli.tui.widgets.transcript import Transcript


class TuiHost(Protocol):
    """The app as its controllers see it."""

    shell: FrontShell | None
    options: TuiOptions
    pi_themes: dict[str, Theme]
    theme: str

    @property
    def editor(self) -> Editor: ...
    @property
    def transcript(self) -> Transcript: ...
    @property
    def footer(self) -> StatusFooter: ...
    @property
    def screen(self) -> Screen[Any]: ...
    @property
    def is_live(self) -> bool: ...

    def submit_text(self, text: str) -> None: ...
    def switch_theme(self, name: str) -> None: ...
    def refresh_status(self) -> None: ...
    def refresh_queue(self) -> None: ...
    def notify(self, message: str, *, severity: SeverityLevel = "information") -> None: ...
    def exit(self, result: Any = None, return_code: int = 0) -> None: ...
    def copy_to_clipboard(self, text: str) -> None: ...
    def suspend(self) -> AbstractContextManager[None]: ...
    async def push_screen_wait(self, screen: Screen[Any]) -> Any: ...
    def push_screen(
        self,
        screen: Screen[ScreenResultType],
        callback: ScreenResultCallbackType[ScreenResultType] | None = None,
    ) -> AwaitMount: ...
    def run_worker(
        self, work: Coroutine[Any, Any, None], *, group: str = "default", exit_on_error: bool = True
    ) -> Worker[None]: ...
