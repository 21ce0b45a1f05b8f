"""``pi worktree list|remove NAME [--force]``, and ``pi -w [NAME] [--base REF]``: a session in a
fresh git worktree of the current repository (see :mod:`pi_cli.shell.worktrees`)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

USAGE = "usage: pi worktree list | pi worktree remove NAME [--force]"
_FLAGS = ("-w", "--worktree")


def accepts(argv: list[str]) -> bool:
    """``pi worktree list`` / ``pi worktree remove NAME [--force]``; anything else is a prompt."""
    if argv == ["list"]:
        return True
    rest = [a for a in argv[1:] if a != "--force"]
    return len(argv) >= 2 and argv[0] == "remove" and len(rest) == 1


def run(argv: list[str]) -> int:
    """List or remove pi's worktrees; the exit code."""
    from pi_cli.shell import WorktreeError, list_worktrees, one_line, remove_worktree, say

    try:
        if argv[0] == "list":
            trees = list_worktrees(Path.cwd())
            for tree in trees:
                say(one_line(tree.summary()))
            if not trees:
                say("No worktrees (pi -w NAME starts a session in a new one).")
            return 0
        name = next(a for a in argv[1:] if a != "--force")
        tree = remove_worktree(Path.cwd(), name, force="--force" in argv)
    except WorktreeError as exc:
        say(str(exc), err=True)
        return 1
    say(f"Removed worktree {tree.name} ({one_line(tree.path)}) and its branch {tree.branch}.")
    return 0


def take_worktree_flags(args: list[str]) -> tuple[list[str], str | None, str]:
    """``args`` without ``-w [NAME]`` / ``--worktree[=NAME]`` / ``--base REF``; the name ("" for
    a generated one, None without the flag) and the base. A word after ``-w`` is the name only
    when it can be one (``pi -w fix the bug`` is a prompt in a worktree with a made-up name)."""
    from pi_cli.shell import WorktreeError, valid_name

    out: list[str] = []
    name: str | None = None
    base = "HEAD"
    words = iter(enumerate(args))
    for index, arg in words:
        if arg == "--":
            out += args[index:]
            break
        if arg.startswith("--worktree="):
            name = arg.split("=", 1)[1]
        elif arg in _FLAGS:
            name = ""
            following = args[index + 1] if index + 1 < len(args) else None
            if following is not None and not following.startswith("-"):
                try:
                    name = valid_name(following)
                    next(words)
                except WorktreeError:
                    pass
        elif arg == "--base" and index + 1 < len(args):
            base = args[index + 1]
            next(words)
        elif arg.startswith("--base="):
            base = arg.split("=", 1)[1]
        else:
            out.append(arg)
    return out, name, base


def enter_worktree(name: str, base: str) -> tuple[Path, str]:
    """Create the worktree and make it the current directory; its path and name
    (WorktreeError)."""
    from pi_cli.shell import create_worktree, one_line, say

    tree = create_worktree(Path.cwd(), name or f"session-{secrets.token_hex(3)}", base)
    os.chdir(tree.path)
    say(
        f"pi: working in worktree {tree.name} ({one_line(tree.path)}, branch {tree.branch})",
        err=True,
    )
    return tree.path, tree.name


def leave_worktree(origin: Path, name: str, ask: bool) -> None:
    """On exit: a clean worktree goes; one with changes is kept, or removed if the user says
    so at a terminal (never without asking)."""
    from pi_cli.shell import WorktreeError, find_worktree, one_line, remove_worktree, say

    try:
        tree = find_worktree(origin, name)
        if tree.clean:
            remove_worktree(origin, tree.name)
            say(f"pi: removed worktree {tree.name} (no changes).", err=True)
            return
        what = tree.summary().split("  ")[2]
        if ask:
            answer = input(f"pi: worktree {tree.name} has {what}. Keep it? [Y/n/remove] ").strip()
            if answer.lower() in ("n", "no", "remove"):
                remove_worktree(origin, tree.name, force=True)
                say(f"pi: removed worktree {tree.name} and branch {tree.branch}.", err=True)
                return
        say(
            f"pi: kept worktree {tree.name} ({what}) at {one_line(tree.path)}, branch "
            f"{tree.branch}; `pi worktree remove {tree.name}` removes it.",
            err=True,
        )
    except (WorktreeError, EOFError, KeyboardInterrupt) as exc:
        say(f"pi: worktree {name} kept ({one_line(str(exc)) or 'no answer'}).", err=True)
