"""git for sources pi fetches (marketplaces, plugins, packages): no prompts, no hooks, no system
configuration, and only the file, git, http(s) and ssh protocols."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from pi_cli.shell.text.terminal import one_line

GIT_TIMEOUT_S = 300.0


class GitError(ValueError):
    """git failed or is missing (the message says why, in one line)."""


def git(*args: str, cwd: Path | None = None, timeout: float = GIT_TIMEOUT_S) -> str:
    """Run git; its stdout, or :class:`GitError` with git's last line of complaint."""
    env = {
        **os.environ,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ALLOW_PROTOCOL": "file:git:http:https:ssh",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    command = ["git", "-c", "core.hooksPath=/dev/null", "-c", "protocol.file.allow=always"]
    try:
        done = subprocess.run(
            [*command, *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise GitError("git is not installed (it is needed for git sources)") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} took longer than {timeout:g}s") from None
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        raise GitError(f"git {args[0]} failed: {one_line(lines[-1] if lines else '?')[:300]}")
    return done.stdout


def head_commit(folder: Path) -> str | None:
    """The commit checked out in ``folder`` (None: not a git work tree)."""
    if not (folder / ".git").exists():
        return None
    try:
        return git("rev-parse", "HEAD", cwd=folder).strip() or None
    except GitError:
        return None


def clone(url: str, dest: Path, ref: str | None = None, sha: str | None = None) -> str:
    """Clone ``url`` into ``dest`` at ``ref`` or ``sha`` (default branch else); the commit."""
    git("clone", "--quiet", "--no-recurse-submodules", "--", url, str(dest))
    if sha or ref:
        git("checkout", "--quiet", "--detach", sha or ref or "", "--", cwd=dest)
    return git("rev-parse", "HEAD", cwd=dest).strip()
