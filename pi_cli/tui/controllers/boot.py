"""Starting the TUI's shell after the first frame, so the user sees pi at once: built here in a
thread (``shell_factory``) or reached elsewhere on the app's loop (``connect``: ``pi attach``).
Either way the app gets a :class:`~pi_cli.tui.messages.ShellBuilt` (the shell, or why not)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.tui import messages as m
from pi_cli.tui.keymap import has_extended_keys

if TYPE_CHECKING:
    from pi_cli.shell import FrontShell

Factory = Callable[[], "FrontShell | str"]
Connect = Callable[[], Awaitable["FrontShell | str"]]


class BootHost(Protocol):
    """What starting the shell needs of the app."""

    extended_keys: bool | None

    @property
    def call_after_refresh(self) -> Callable[..., Any]: ...
    @property
    def run_worker(self) -> Callable[..., Any]: ...
    @property
    def post_message(self) -> Callable[..., Any]: ...


def start_shell(app: BootHost, factory: Factory | None, connect: Connect | None) -> None:
    """Build or reach the shell once the first frame is drawn."""
    if factory is not None:
        build = lambda: _build(app, factory)  # noqa: E731 - the thread worker
        app.call_after_refresh(app.run_worker, build, thread=True, group="boot")
    elif connect is not None:
        app.call_after_refresh(app.run_worker, _connect(app, connect), group="boot")


def _build(app: BootHost, factory: Factory) -> None:
    """Thread worker: build the shell, then hand it to the app's thread."""
    try:
        result = factory()
        import pi_cli.tui.document.turn  # noqa: F401 - warm Markdown for the first turn

        if app.extended_keys is None:
            app.extended_keys = has_extended_keys()
    except Exception as exc:  # noqa: BLE001 - a bug; report it instead of hanging on "starting"
        result = f"internal error while starting: {type(exc).__name__}: {exc}"
    app.post_message(m.ShellBuilt(result))  # thread-safe: handled on the app's loop
    if not isinstance(result, str):
        from pi_cli.tui.document.markdown import warm_highlighter

        warm_highlighter()  # after: the shell is ready meanwhile


async def _connect(app: BootHost, connect: Connect) -> None:
    """Worker: reach the shell elsewhere (its events arrive on this loop)."""
    app.post_message(m.ShellBuilt(await connect()))
