"""Shared start-up for every front end: build the shell or explain why it cannot start."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

from pi_cli.args import ExitCode, LaunchArgs, error

if TYPE_CHECKING:
    from pi_cli.shell import CodingAgent


def try_build_shell(args: LaunchArgs) -> CodingAgent | str:
    """The shell, or the user-facing reason it cannot start (never a traceback)."""
    from pi_cli.shell import CodingAgent, ConfigError, SessionError, SettingsError

    try:
        return CodingAgent(args.shell)
    except (ConfigError, SettingsError, SessionError) as exc:
        return str(exc)
    finally:
        # What start-up made lives for the whole run: out of the collector's way for good
        # (every later collection, and the one at exit, would walk it again for nothing).
        gc.freeze()
        gc.enable()


def build_shell(args: LaunchArgs) -> CodingAgent | int:
    """The shell, or an exit code after printing a clear message (never a traceback)."""
    shell = try_build_shell(args)
    if isinstance(shell, str):
        error(shell)
        return ExitCode.USAGE
    return shell
