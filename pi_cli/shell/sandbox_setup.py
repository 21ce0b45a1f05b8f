"""The session's sandbox, built once per shell from settings and options.

The sandbox itself lives in :mod:`tools.sandbox`; the shell decides what it hides (all of
``PI_HOME``), what stays read-only in the workspace (the protected paths) and what is writable
besides the workspace (``sandbox.writable``; the lead wires ``--add-dir`` in here).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from pi_cli.shell.paths import pi_home

log = logging.getLogger("pi_cli")

if TYPE_CHECKING:
    from pi_cli.shell.events import ShellEvent
    from pi_cli.shell.options import ShellOptions
    from pi_cli.shell.settings import Settings
    from tools.sandbox import Sandbox

MIB = 1024 * 1024
Notify = Callable[[str, Literal["info", "warning", "error"]], None]


class Events(Protocol):
    """What the sandbox uses of the shell's event bus."""

    def notify(self, text: str, level: Literal["info", "warning", "error"] = "info") -> None: ...
    def emit(self, event: ShellEvent) -> None: ...
    def subscribe(self, listener: Callable[[ShellEvent], None]) -> Callable[[], None]: ...


def build_sandbox(
    cwd: Path,
    options: ShellOptions,
    settings: Settings,
    events: Events,
    extra_writable: list[Path] | None = None,
) -> Sandbox:
    """The sandbox of a shell in ``cwd``. Nothing starts before the first run: then it starts
    in the background while the model thinks (the first bash call does not wait for it). Its
    background shells' changes are emitted as :class:`BackgroundShellsChanged`."""
    from agent_core import AgentStart
    from pi_cli.shell.events import BackgroundShellsChanged
    from tools.sandbox import DEFAULT_PROTECTED, Sandbox

    home = pi_home()
    try:
        # Hidden from the start: a PI_HOME created later would be visible inside.
        home.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass
    writable = [(cwd / Path(path).expanduser()) for path in settings.sandbox.writable]
    sandbox = Sandbox(
        cwd,
        mode=settings.sandbox.mode,
        network=settings.sandbox.network,
        writable=[*writable, *(extra_writable or [])],
        hidden=[home],
        protected=DEFAULT_PROTECTED,
        keep_background=options.keep_background,
        output_cap=int(settings.bash_spill_cap_mb * MIB),
        notify=events.notify,
    )
    shells = sandbox.shells
    shells.on_change = lambda: events.emit(BackgroundShellsChanged.of(shells.infos()))
    events.subscribe(lambda event: sandbox.prestart() if isinstance(event, AgentStart) else None)
    return sandbox


async def close_sandbox(sandbox: Sandbox, notify: Notify) -> None:
    """Stop the tools' processes at shutdown; say which background shells were kept.

    Never raises: shutting down must go on (the helpers also stop at pi's exit by themselves).
    """
    kept = sandbox.kept_report() if sandbox.keep_background else []
    if kept:
        notify("Background shells kept running after pi exits:\n  " + "\n  ".join(kept), "warning")
    try:
        await sandbox.aclose()
    except Exception:  # noqa: BLE001
        log.exception("closing the sandbox failed")
