"""``pi trust [DIR]``, ``pi trust --revoke [DIR]``, ``pi trust --list``: folder trust decisions."""

from __future__ import annotations

from pathlib import Path

USAGE = "usage: pi trust [DIR] | pi trust --revoke [DIR] | pi trust --list"
_FLAGS = ("--revoke", "--list")


def accepts(argv: list[str]) -> bool:
    """Only exact forms are the subcommand; ``pi trust me on this`` stays a prompt."""
    flags = [a for a in argv if a in _FLAGS]
    rest = [a for a in argv if a not in _FLAGS]
    if len(flags) > 1 or len(rest) > 1 or ("--list" in flags and rest):
        return False
    return not rest or Path(rest[0]).expanduser().is_dir()


def run(argv: list[str]) -> int:
    """Record, revoke or list trust decisions; returns the exit code."""
    from pi_cli.shell import check_trust, forget_trust, one_line, record_trust, say, trusted_folders

    if "--list" in argv:
        for name, trusted in trusted_folders():
            say(f"{'trusted' if trusted else 'untrusted':9}  {one_line(name)}")
        return 0
    rest = [a for a in argv if a not in _FLAGS]
    folder = Path(rest[0]).expanduser() if rest else Path.cwd()
    if "--revoke" in argv:
        removed = forget_trust(folder)
        say(f"{'Forgot' if removed else 'No decision stored for'} {one_line(folder.resolve())}")
        return 0
    check = check_trust(folder)
    record_trust(check.root, True, check.digest)
    say(f"Trusted {one_line(check.root)}.")
    if check.items:
        say("Its configuration now applies:")
        for item in check.items:
            say(f"  - {one_line(item)}")
    else:
        say("(It has no configuration that needs trust right now.)")
    say("A change to its hook or settings files will ask again.", err=True)
    return 0
