"""The session's sandbox, built once per shell from settings and options.

The sandbox itself lives in :mod:`tools.sandbox`; the shell decides what it hides (all of
``PI_HOME``), what stays read-only in the workspace (the permission engine's protected paths)
and what is writable besides the workspace (``sandbox.writable``, and the workspace's extra
directories: ``--add-dir``, ``permissions.additionalDirectories``). In the
``bypassPermissions`` (yolo) mode commands run without it, unless ``sandbox.mode`` is
``required``.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pi_cli.shell.paths import pi_home

log = logging.getLogger("pi_cli")

if TYPE_CHECKING:
    from agent_core import Tool
    from pi_cli.shell.config.settings import Settings
    from pi_cli.shell.events import ShellEvent
    from pi_cli.shell.options import ShellOptions
    from pi_cli.shell.permissions import PermissionControl
    from tools.sandbox import Sandbox, SandboxMode

MIB = 1024 * 1024
Notify = Callable[[str, Literal["info", "warning", "error"]], None]


class Shell(Protocol):
    """What the sandbox's set-up reads of the shell (the CodingAgent)."""

    @property
    def cwd(self) -> Path: ...
    @property
    def events(self) -> Events: ...
    @property
    def options(self) -> ShellOptions: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def permissions(self) -> PermissionControl: ...


class Events(Protocol):
    """What the sandbox uses of the shell's event bus."""

    def notify(self, text: str, level: Literal["info", "warning", "error"] = "info") -> None: ...
    def emit(self, event: ShellEvent) -> None: ...
    def subscribe(self, listener: Callable[[ShellEvent], None]) -> Callable[[], None]: ...


def tools_and_sandbox(
    shell: Shell, env: Mapping[str, str] | None, services: Any = None
) -> tuple[list[Tool], Sandbox]:
    """The shell's tools (their commands run with ``env``; ``services``: the agent tools' side
    of the shell) and its one sandbox."""
    from pi_cli.shell.models.setup import create_shell_tools

    options, settings = shell.options, shell.settings
    sandbox = build_sandbox(shell.cwd, options, settings, shell.events)
    # Read when the sandbox starts: the permission control is built after the tools.
    sandbox.extra_writable = lambda: shell.permissions.extra_dirs
    sandbox.skip = lambda: _yolo(shell)
    return create_shell_tools(options, settings, shell.cwd, env, sandbox, services), sandbox


def _yolo(shell: Shell) -> str | None:
    if shell.permissions.mode == "bypassPermissions":  # read when the sandbox starts
        return "the permission mode is bypassPermissions (yolo)"
    return None


def build_sandbox(
    cwd: Path,
    options: ShellOptions,
    settings: Settings,
    events: Events,
    extra_writable: list[Path] | None = None,
) -> Sandbox:
    """The sandbox of a shell in ``cwd``. Its process helper starts while the shell is built
    (``Sandbox.prestart``), or when the first run begins if the shell is built off the event
    loop's thread, so the first bash call does not wait for it. Its background shells'
    changes are emitted as :class:`BackgroundShellsChanged`."""
    from agent_core import AgentStart
    from pi_cli.shell.events import BackgroundShellsChanged
    from pi_cli.shell.permissions import PROTECTED_PATHS
    from tools.sandbox import Sandbox

    home = pi_home()
    try:
        # Hidden from the start: a PI_HOME created later would be visible inside.
        home.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass
    writable = [(cwd / Path(path).expanduser()) for path in settings.sandbox.writable]
    mode: SandboxMode = settings.sandbox.mode
    override = os.environ.get("PI_SANDBOX_MODE", "")
    if override in ("auto", "required", "off"):
        mode = override  # type: ignore[assignment] # e.g. off in a CI container without userns
    elif override:
        events.notify(f"PI_SANDBOX_MODE={override!r} ignored: auto, required or off", "warning")
    sandbox = Sandbox(
        cwd,
        mode=mode,
        network=settings.sandbox.network,
        writable=[*writable, *(extra_writable or [])],
        hidden=[home],
        protected=PROTECTED_PATHS,
        keep_background=options.keep_background,
        output_cap=int(settings.bash_spill_cap_mb * MIB),
        notify=events.notify,
        quarantine=home / "quarantine",  # hidden inside: a command cannot take it back
    )
    shells = sandbox.shells
    shells.on_change = lambda: events.emit(BackgroundShellsChanged.of(shells.infos()))
    events.subscribe(lambda event: sandbox.prestart() if isinstance(event, AgentStart) else None)
    return sandbox
