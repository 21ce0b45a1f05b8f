"""The `pi` command (placeholder entry until the shell issue lands)."""

from __future__ import annotations

import sys

from pi_cli import __version__


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `pi` console script."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("--version", "-v"):
        print(f"pi {__version__}")
        return 0
    print("pi: no model provider is wired in yet.", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
