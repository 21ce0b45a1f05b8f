"""Which ``git`` invocations are read-only, and the overrides that keep them so.

A repository's config can make reading commands run programs: ``core.fsmonitor`` (status,
diff), an external diff or ``textconv`` driver (diff, log, show, blame, grep), a pager, a GPG
program for signatures (``%G?`` in a format, ``log.showSignature``), hooks (``git status``
writes the index, which runs ``post-index-change``), an askpass or ssh command, an editor, clean/
smudge filters (status, diff). pi adds :data:`GIT_SAFE` after ``git`` (command-line ``-c``
wins over every config file; ``--no-optional-locks`` keeps ``status`` from writing the index)
and ``--no-textconv``/``--no-ext-diff`` after the subcommand where they exist, to every git
command it runs without asking; it asks for options that run or write (any abbreviation of
them too: parse-options accepts unique prefixes), for signature formats, and when the
repository configures filter programs (their names are keys no ``-c`` can cover).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from pi_cli.shell.permissions.bash_parse import Word
from pi_cli.shell.permissions.readonly_options import abbreviates
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

_DIFF_SAFE = "--no-textconv --no-ext-diff"
_SUBCOMMANDS: dict[str, str] = {
    "status": "",
    "log": _DIFF_SAFE,
    "whatchanged": _DIFF_SAFE,
    "diff": _DIFF_SAFE,
    "show": _DIFF_SAFE,
    "blame": "--no-textconv",
    "grep": "--no-textconv",
    "shortlog": "",
    "describe": "",
    "rev-parse": "",
    "rev-list": "",
    "ls-files": "",
    "ls-tree": "",
    "cat-file": "",
    "show-ref": "",
    "merge-base": "",
    "name-rev": "",
    "count-objects": "",
    "for-each-ref": "",
    "branch": "",
    "tag": "",
    "remote": "",
    "stash": "",
    "reflog": "",
    "config": "",
    "worktree": "",
}
_DENIED = frozenset(
    {
        "--output",
        "--output-directory",
        "--ext-diff",
        "--textconv",
        "--open-files-in-pager",
        "-O",
        "--show-signature",
        "--filters",
        "--alternate-refs",
        "--edit",
        "--edit-description",
    }
)
_LIST_FLAGS = frozenset({"-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged"})
_LIST_FLAGS |= {"--points-at"}
_BRANCH_FLAGS = frozenset(
    {"-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--show-current", "--color"}
    | {"--no-color", "--column", "--no-column", "-i", "--ignore-case", "--omit-empty"}
)
_CONFIG_READS = frozenset({"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch"})
_CONFIG_OK = _CONFIG_READS | {"--global", "--local", "--system", "--show-origin", "--show-scope"}
_CONFIG_OK |= {"--null", "-z", "--name-only", "--includes", "--no-includes", "--type", "--bool"}
_CONFIG_OK |= {"--int", "--path"}


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
    if index >= len(words):
        return "git without a subcommand"
    sub = words[index]
    if sub.dynamic or sub.text not in _SUBCOMMANDS:
        return f"git {sub.text} is not a read-only git command"
    rest = words[index + 1 :]
    for word in rest:
        if word.dynamic:
            return f"{word.text!r} is only known when git runs ({word.dynamic})"
        head = word.text.split("=", 1)[0]
        denied = abbreviates(head, _DENIED)
        if denied is not None or (word.text.startswith("-O") and not word.text.startswith("--")):
            return f"git option {head} writes or runs something"
        if "%G" in word.text or "%(signature" in word.text:
            return f"git format {word.text!r} verifies signatures (runs gpg)"
    problem = _shape(sub.text, [w.text for w in rest])
    if problem:
        return problem
    if has_filters(cwd):
        return "the repository's git config defines filter programs, which git would run"
    paths = []
    for word in rest:
        text = word.text
        if text.startswith("-"):
            if "=" in text:
                paths.append(text.split("=", 1)[1])
            continue
        paths.append(text)
    plan = GitPlan(after_git=words[0].end, cwd=cwd, paths=paths)
    if _SUBCOMMANDS[sub.text]:
        plan.after_sub, plan.sub_flags = sub.end, _SUBCOMMANDS[sub.text]
    return plan


def _shape(sub: str, args: list[str]) -> str | None:
    """Why ``git sub args`` would change something (None: it only reads)."""
    positional = [a for a in args if not a.startswith("-")]
    flags = {a.split("=", 1)[0] for a in args if a.startswith("-")}
    listing = bool(flags & _LIST_FLAGS)
    if sub == "branch":
        unknown = flags - _BRANCH_FLAGS - _LIST_FLAGS - {"--sort", "--format"}
        if unknown or (positional and not listing):
            return "git branch that creates, renames or deletes branches"
    elif sub == "tag":
        if (flags - _LIST_FLAGS - {"-n", "--sort", "--format", "--column", "--no-column"}) or (
            positional and not listing
        ):
            return "git tag that creates or deletes tags"
    elif sub == "remote":
        if (positional and positional[0] != "get-url") or flags - {"-v", "--verbose"}:
            return "git remote that changes or contacts remotes"
    elif sub in ("stash", "worktree"):
        allowed = ("list", "show") if sub == "stash" else ("list",)
        if not positional or positional[0] not in allowed:
            return f"git {sub} that changes the repository"
    elif sub == "reflog":
        if positional and positional[0] in ("expire", "delete"):
            return "git reflog that expires or deletes entries"
    elif sub == "config":
        if not flags & _CONFIG_READS or flags - _CONFIG_OK:
            return "git config that writes configuration"
    return None


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
