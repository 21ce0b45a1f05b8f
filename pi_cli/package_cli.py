"""``pi install | list | update | remove``: packages (see docs/packages.md)."""

from __future__ import annotations

from pathlib import Path


def accepts(argv: list[str]) -> bool:
    """``argv`` is the verb and its words; anything else stays a prompt."""
    from pi_cli.shell import package_accepts

    return bool(argv) and package_accepts(argv[0], argv[1:])


def run(argv: list[str]) -> int:
    """Do it; 0, or 1 with the reason on stderr."""
    from pi_cli.shell import PackageError, package_words, say

    try:
        lines = package_words(argv[0], argv[1:], Path.cwd())
    except PackageError as exc:
        say(f"pi {argv[0]}: {exc}", err=True)
        return 1
    for line in lines:
        say(line)
    return 0 if not any(": not " in line for line in lines) else 1
