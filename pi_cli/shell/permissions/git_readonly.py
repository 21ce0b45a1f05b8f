"""Which ``git`` invocations are read-only, and the overrides that keep them so.

A repository's config can make reading commands run programs: ``core.fsmonitor`` (status,
diff), an external diff or ``textconv`` driver (diff, log, show, blame, grep), a pager, a GPG
program for signatures (``%G?`` in a format, ``log.showSignature``), hooks (``git status``
writes the index, which runs ``post-index-change``), an askpass or ssh command, an editor, clean/
smudge filters (status, diff). pi adds :data:`GIT_SAFE` after ``git`` (command-line ``-c``
wins over every config file; ``--no-optional-locks`` keeps ``status`` from writing the index)
and ``--no-textconv``/``--no-ext-diff`` after the subcommand where they exist, to every git
command it runs without asking; each subcommand's words are read against its option table
(:mod:`._git_read`): an option not in it, or one that runs or writes, asks, as do signature
formats and a repository that configures filter programs (their names are keys no ``-c`` can
cover).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from pi_cli.shell.permissions._bash_parse import Word
from pi_cli.shell.permissions._git_read import read_git
from pi_cli.shell.permissions.workspace import Workspace, real

GIT_SAFE = (
    "--no-pager --no-optional-locks -c core.fsmonitor=false -c core.pager=cat -c diff.external= "
    "-c log.showSignature=false -c diff.ignoreSubmodules=all -c status.submoduleSummary=false "
    "-c gpg.program=false -c gpg.openpgp.program=false -c gpg.x509.program=false "
    "-c gpg.ssh.program=false -c core.hooksPath=/dev/null -c core.sshCommand=false "
    "-c core.askPass=false -c core.editor=false -c sequence.editor=false "
    "-c core.alternateRefsCommand= -c uploadpack.packObjectsHook= -c credential.helper="
)
"""Global options pi adds to each git command it runs as read-only (see the module doc)."""


class GitPlan:
    """A read-only git command: where to insert pi's overrides, which paths it names."""

    def __init__(self, after_git: int, cwd: Path, paths: list[str]) -> None:
        self.after_git = after_git
        self.global_flags = GIT_SAFE
        self.after_sub = 0
        self.sub_flags = ""
        self.cwd = cwd
        self.paths = paths


def git_plan(
    words: list[Word], cwd: Path, workspace: Workspace, has_filters: Callable[[Path], bool]
) -> GitPlan | str:
    """The plan for a read-only ``git ...`` (``words[0]`` is ``git``), or why it is not one."""
    start = _global_options(words, cwd, workspace)
    if isinstance(start, str):
        return start
    index, cwd = start
    if index >= len(words):
        return "git without a subcommand"
    sub = words[index]
    if sub.dynamic:
        return f"git {sub.text} is not a read-only git command"
    rest = words[index + 1 :]
    for word in rest:
        if word.dynamic:
            return f"{word.text!r} is only known when git runs ({word.dynamic})"
        if "%G" in word.text or "%(signature" in word.text:
            return f"git format {word.text!r} verifies signatures (runs gpg)"
    read = read_git(sub.text, [word.text for word in rest])
    if isinstance(read, str):
        return read
    if has_filters(cwd):
        return "the repository's git config defines filter programs, which git would run"
    plan = GitPlan(after_git=words[0].end, cwd=cwd, paths=read.paths)
    if read.safe_flags:
        plan.after_sub = rest[read.safe_after - 1].end if read.safe_after else sub.end
        plan.sub_flags = read.safe_flags
    return plan


def _global_options(words: list[Word], cwd: Path, workspace: Workspace) -> tuple[int, Path] | str:
    """Where the subcommand is and the directory git runs in (``-C``), or why pi asks."""
    index = 1
    while index < len(words) and words[index].text.startswith("-"):
        flag = words[index].text
        if flag in ("--no-pager", "-P", "--no-optional-locks"):
            index += 1
        elif flag == "-C" and index + 1 < len(words) and not words[index + 1].dynamic:
            cwd = real(words[index + 1].text, cwd)
            if not workspace.contains(cwd):
                return f"git -C {words[index + 1].text} leaves the workspace"
            index += 2
        else:
            return f"git option {flag} is not allowed without asking"
    return index, cwd


def repo_has_filters(cwd: Path, env: dict[str, str] | None = None) -> bool:
    """Whether git at ``cwd`` is configured with filter programs (clean/smudge/process).

    Any doubt (git missing, a timeout) counts as yes.
    """
    try:
        result = subprocess.run(
            [
                "git",
                "config",
                "--name-only",
                "--get-regexp",
                r"^filter\..*\.(clean|smudge|process)$",
            ],
            cwd=cwd,
            env=env if env is not None else dict(os.environ),
            capture_output=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return True
    # 1: no such key; 128: not a repository (then git reads no repository config either).
    return result.returncode not in (1, 128) or bool(result.stdout.strip())
