"""What the ``pi`` command line means: the exit codes, ``LaunchArgs``, the fast parser.

A leaf module (no typer, no pydantic): the typer application (``--help``, error messages) and
the fast parser of the one-shot path are both built from the option table
(:data:`~pi_cli.option_table.OPTIONS`, re-exported here), so a flag is one row there plus, for a
shell option, one :class:`~pi_cli.shell.options.ShellOptions` field.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from typing import Any

from pi_cli.option_table import HELP_FLAGS as HELP_FLAGS
from pi_cli.option_table import OPTIONS as OPTIONS
from pi_cli.option_table import PERMISSION_MODES as PERMISSION_MODES
from pi_cli.option_table import THINKING_CHOICES as THINKING_CHOICES
from pi_cli.option_table import VERSION_FLAGS as VERSION_FLAGS
from pi_cli.option_table import Kind as Kind
from pi_cli.option_table import Option as Option
from pi_cli.shell import ShellOptions


class ExitCode(IntEnum):
    """Every outcome of a pi process, one code each (documented in docs/usage.md)."""

    OK = 0
    """The run finished and answered."""
    ERROR = 1
    """The model or the loop failed (provider error, crash, a failed command)."""
    USAGE = 2
    """Bad flags, a bad settings or config file, no model configured, a deleted working directory."""
    REFUSED = 3
    """The model refused to answer."""
    TRUNCATED = 4
    """The answer was cut at the model's output token limit."""
    BUDGET = 5
    """A budget (``--max-turns``, ``--max-cost``, a goal's ``goal.maxRounds``) stopped the run."""
    SCHEMA = 6
    """The final answer never matched ``--output-schema``."""
    DENIED = 7
    """A tool call needed an approval that nobody could give (non-interactive modes); also
    ``pi rewind`` when files changed by hand need ``--yes`` or ``--keep``."""
    DIVERGED = 8
    """``--replay``: a replayed tool call gave another result than the recorded one."""
    FINDINGS = 9
    """``pi review``: a finding at or above ``--fail-on``."""
    HANGUP = 129
    """SIGHUP: the terminal went away."""
    INTERRUPTED = 130
    """Ctrl+C (SIGINT)."""
    TERMINATED = 143
    """SIGTERM."""


def error(message: str) -> None:
    """Print a user-facing error on stderr (cleaned: errors quote settings, sessions and names
    a repository or a model chose)."""
    from pi_cli.shell import say

    say(f"pi: {message}", err=True)


@dataclass
class LaunchArgs:
    """Everything the command line asked for: the shell's options and the front end's."""

    shell: ShellOptions = field(default_factory=ShellOptions)
    prompt: str = ""
    print_mode: bool = False
    mode: str = "text"
    theme: str | None = None
    plain: bool = False
    json_partials: bool = False
    list_models: bool = False
    images: list[str] = field(default_factory=list)
    resume: bool = False
    export: str | None = None
    replay: str | None = None
    replay_live: bool = False
    detach: bool = False
    attach: bool = False
    background: Callable[[str], Awaitable[str]] | None = None
    """What ``& prompt`` in the TUI or the REPL does: start it in the server (the launcher sets
    it; front ends only call it), returning what to tell the user."""

    @property
    def cwd(self) -> Path:
        """The working directory."""
        return self.shell.cwd


def apply(args: LaunchArgs, option: Option, value: Any) -> None:
    """Store ``value`` where ``option`` says (``csv`` values are split here)."""
    if option.kind == "csv" and isinstance(value, str):
        value = [part.strip() for part in value.split(",") if part.strip()]
    target: Any = args
    name = option.dest
    if name.startswith("shell."):
        target, name = args.shell, name.removeprefix("shell.")
    if option.kind == "list":
        getattr(target, name).extend(value if isinstance(value, list) else [value])
    else:
        setattr(target, name, value)


def parse_fast(argv: list[str], cwd: Path | None = None) -> LaunchArgs | None:
    """Parse ``argv`` with the option table; ``None`` when typer must answer instead.

    Typer handles ``--help``, ``--version`` mixed with other words, unknown options and bad
    values (its messages); everything valid is parsed here without importing it.
    """
    args = LaunchArgs(shell=ShellOptions(cwd=cwd or Path.cwd()))
    by_flag = {flag: option for option in OPTIONS for flag in option.flags}
    words: list[str] = []
    index = 0
    while index < len(argv):
        word = argv[index]
        index += 1
        if word == "--":
            words.extend(argv[index:])
            break
        if not word.startswith("-") or word == "-":
            words.append(word)
            continue
        flag, eq, inline = word.partition("=")
        option = by_flag.get(flag)
        if option is None:
            return None  # --help, -v, an unknown or bundled option: typer's message
        if option.kind == "flag":
            if eq:
                return None
            apply(args, option, option.flag_value)
            continue
        if eq:
            value = inline
        elif index < len(argv):
            value = argv[index]
            index += 1
        else:
            return None
        if option.choices and value not in option.choices:
            return None
        apply(args, option, value)
    args.prompt = " ".join(words)
    return args
