"""``pi review``: review changes with a read-only reviewer; findings as text, JSON or SARIF.

See ``docs/review.md``; the run is :class:`pi_cli.shell.ReviewCli`. This front end gives it
the way to build a shell (the one every mode uses) and the one-shot progress lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_cli.shell import CodingAgent, ShellOptions


def accepts(argv: list[str]) -> bool:
    """``pi review [TARGET] [options]`` (anything else is a prompt)."""
    from pi_cli.shell import ReviewCli

    return ReviewCli.accepts(argv)


def run(argv: list[str]) -> int:
    """Entry point of ``pi review`` (the words after ``review``)."""
    import gc

    # As the one-shot path does (pi_cli.cli): no collection while start-up builds objects that
    # live as long as the process; try_build_shell freezes them and turns collection back on.
    gc.disable()
    from pi_cli import __version__
    from pi_cli.shell import ReviewCli

    return ReviewCli.run(argv, _build, _progress, __version__)


def _build(options: ShellOptions) -> CodingAgent | str:
    from pi_cli.args import LaunchArgs
    from pi_cli.modes.common import try_build_shell

    return try_build_shell(LaunchArgs(shell=options))


def _progress(shell: CodingAgent) -> Any:
    from pi_cli.modes.print_mode import Progress

    return Progress(shell)
