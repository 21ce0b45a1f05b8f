"""What ``pi review`` reviews, and the ``git diff`` that shows it.

Targets: the working tree's uncommitted changes (staged, unstaged and untracked files; the
default), one commit (against its first parent; a root commit against the empty tree), a range
(``A..B``, ``A...B`` as git reads them) or the current branch against its base. The base is
``--base REF`` or found: the branch's upstream, then ``origin/HEAD``, then ``main``, then
``master``; the branch's changes are those since its merge base with it.

Only read-only git commands run (``rev-parse``, ``merge-base``, ``diff``, ``ls-files``), with
``--no-ext-diff --no-textconv`` and no colour, so a repository's config cannot run a program.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
MAX_UNTRACKED = 200
"""Untracked files shown in an uncommitted review (more are named in a warning)."""
MAX_DIFF_BYTES = 64 * 1024 * 1024
_DIFF_FLAGS = ("--no-color", "--no-ext-diff", "--no-textconv", "-M", "--find-copies", "-p")
_REV = re.compile(r"[A-Za-z0-9_./~^@{}:+-]{1,200}")
_CONFIG = (
    "-c",
    "core.quotePath=true",
    "-c",
    "diff.noprefix=false",
    "-c",
    "diff.mnemonicPrefix=false",
)


class ReviewTargetError(Exception):
    """The target cannot be reviewed: not a repository, no such commit, no base found."""


@dataclass
class ReviewTarget:
    """A resolved target: what it is, in words and for machines, and its diff."""

    kind: str
    """``uncommitted``, ``commit``, ``range`` or ``branch``."""
    spec: str
    """What the user named (``HEAD~1``, ``main..topic``) or the base ref of a branch review."""
    description: str
    base: str | None
    head: str | None
    diff: str
    warnings: list[str]


def looks_like_rev(word: str) -> bool:
    """``word`` could name a commit or a range (no spaces, no option, git's characters)."""
    return bool(_REV.fullmatch(word)) and not word.startswith("-")


def _git(cwd: Path, *args: str, check: bool = True, ok: tuple[int, ...] = (0,)) -> str:
    try:
        done = subprocess.run(
            ["git", *_CONFIG, *args],
            cwd=cwd,
            capture_output=True,
            timeout=120,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise ReviewTargetError("git is not installed (pi review reads changes with git)") from None
    except subprocess.TimeoutExpired:
        raise ReviewTargetError(f"git {args[0]} took more than 120 s") from None
    if check and done.returncode not in ok:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ReviewTargetError(f"git {args[0]}: {reason[-1] if reason else 'failed'}")
    if len(done.stdout) > MAX_DIFF_BYTES:
        raise ReviewTargetError(
            f"the diff is larger than {MAX_DIFF_BYTES // (1024 * 1024)} MB: review a narrower target"
        )
    return done.stdout.decode("utf-8", "replace") if done.returncode in ok else ""


def _commit(cwd: Path, ref: str) -> str | None:
    out = _git(
        cwd,
        "rev-parse",
        "--verify",
        "--quiet",
        "--end-of-options",
        f"{ref}^{{commit}}",
        check=False,
    )
    return out.strip() or None


def _repository(cwd: Path) -> None:
    if _git(cwd, "rev-parse", "--is-inside-work-tree", check=False).strip() != "true":
        raise ReviewTargetError(
            f"{cwd} is not inside a git work tree: pi review reviews git changes"
        )


def find_base(cwd: Path) -> str:
    """The base of the current branch: upstream, ``origin/HEAD``, ``main``, ``master``."""
    for ref in ("@{upstream}", "origin/HEAD", "main", "master", "origin/main", "origin/master"):
        if _commit(cwd, ref) is not None:
            if ref == "@{upstream}":
                name = _git(cwd, "rev-parse", "--abbrev-ref", "@{upstream}", check=False).strip()
                return name or ref
            return ref
    raise ReviewTargetError(
        "no base branch found (no upstream, origin/HEAD, main or master): name one with --base REF"
    )


def resolve_review_target(
    cwd: Path, target: str | None = None, *, base: str | None = None, branch: bool = False
) -> ReviewTarget:
    """The target and its diff (raises :class:`ReviewTargetError`)."""
    _repository(cwd)
    if target is not None and not looks_like_rev(target):
        raise ReviewTargetError(f"{target!r} is not a commit or a range")
    if branch or base is not None:
        return _branch(cwd, base)
    if target is None:
        return _uncommitted(cwd)
    if ".." in target:
        return _range(cwd, target)
    head = _commit(cwd, target)
    if head is None:
        raise ReviewTargetError(f"{target!r} is not a commit of this repository")
    parent = _commit(cwd, f"{head}^1") or EMPTY_TREE
    diff = _git(cwd, "diff", *_DIFF_FLAGS, parent, head, "--")
    subject = _git(cwd, "log", "-1", "--format=%s", head, "--", check=False).strip()
    words = f"commit {head[:12]}" + (f" ({subject[:80]})" if subject else "")
    return ReviewTarget("commit", target, words, parent, head, diff, [])


def _range(cwd: Path, target: str) -> ReviewTarget:
    three = "..." in target
    left, _, right = target.partition("..." if three else "..")
    left, right = left or "HEAD", right or "HEAD"
    old, new = _commit(cwd, left), _commit(cwd, right)
    if old is None or new is None:
        raise ReviewTargetError(
            f"{(left if old is None else right)!r} is not a commit of this repository"
        )
    if three:
        merge_base = _git(cwd, "merge-base", old, new, check=False).strip()
        if not merge_base:
            raise ReviewTargetError(f"{left} and {right} have no common ancestor")
        old = merge_base
    diff = _git(cwd, "diff", *_DIFF_FLAGS, old, new, "--")
    return ReviewTarget("range", target, f"changes {target}", old, new, diff, [])


def _branch(cwd: Path, base: str | None) -> ReviewTarget:
    ref = base or find_base(cwd)
    base_commit = _commit(cwd, ref)
    if base_commit is None:
        raise ReviewTargetError(f"--base {ref}: not a commit of this repository")
    head = _commit(cwd, "HEAD")
    if head is None:
        raise ReviewTargetError("the branch has no commits yet")
    merge_base = _git(cwd, "merge-base", base_commit, head, check=False).strip()
    if not merge_base:
        raise ReviewTargetError(f"this branch and {ref} have no common ancestor")
    name = _git(cwd, "rev-parse", "--abbrev-ref", "HEAD", check=False).strip() or "HEAD"
    diff = _git(cwd, "diff", *_DIFF_FLAGS, merge_base, head, "--")
    words = f"branch {name} against {ref} (since {merge_base[:12]})"
    return ReviewTarget("branch", ref, words, merge_base, head, diff, [])


def _uncommitted(cwd: Path) -> ReviewTarget:
    head = _commit(cwd, "HEAD")
    against = head or EMPTY_TREE
    diff = _git(cwd, "diff", *_DIFF_FLAGS, against, "--")
    warnings: list[str] = []
    listed = _git(cwd, "ls-files", "--others", "--exclude-standard", "-z", check=False)
    untracked = [name for name in listed.split("\0") if name]
    if len(untracked) > MAX_UNTRACKED:
        warnings.append(
            f"{len(untracked) - MAX_UNTRACKED} more untracked files are not reviewed "
            f"(only the first {MAX_UNTRACKED})"
        )
    for name in untracked[:MAX_UNTRACKED]:
        # --no-index exits 1 when the files differ: its output is the diff.
        diff += _git(
            cwd, "diff", "--no-index", *_DIFF_FLAGS, "--", "/dev/null", name, check=False, ok=(0, 1)
        )
    return ReviewTarget("uncommitted", "", "uncommitted changes", against, None, diff, warnings)
