"""Git worktrees for sessions (``pi -w NAME``, ``pi worktree list|remove``).

A worktree lives next to the main checkout, at ``../<repo>-NAME``, on a new branch
``worktree-NAME`` created from a base ref (default ``HEAD``). Not inside the repository as
Claude Code's ``.claude/worktrees/NAME``: pi protects ``.pi`` and ``.claude`` folders (edits there
always ask, and the sandbox mounts them read-only), which would make a worktree there
unworkable. The base commit is recorded in the worktree's own git folder (``pi-base``), so
"unpushed" means commits made in the worktree since it was created that no remote has. Removing one with uncommitted changes or such commits is refused
unless forced. Every git call is an argument list (no shell), with ``--`` before paths.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Worktree",
    "WorktreeError",
    "create_worktree",
    "find_worktree",
    "list_worktrees",
    "remove_worktree",
    "repo_root",
    "valid_name",
]

BRANCH_PREFIX = "worktree-"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,62}")
GIT_TIMEOUT_S = 60


class WorktreeError(Exception):
    """Not a git repository, a bad name, an existing branch, a dirty tree... (said plainly)."""


@dataclass(frozen=True)
class Worktree:
    """One of pi's worktrees and what removing it would lose."""

    name: str
    path: Path
    branch: str
    base: str  # the commit it was created from ("" if unknown)
    dirty: list[str]  # `git status --porcelain` lines
    unpushed: int  # commits since ``base`` that no remote has

    @property
    def clean(self) -> bool:
        """Nothing would be lost by removing it."""
        return not self.dirty and not self.unpushed

    def summary(self) -> str:
        """``feature  worktree-feature  2 uncommitted changes, 1 unpushed commit``."""
        parts = []
        if self.dirty:
            parts.append(f"{len(self.dirty)} uncommitted change{'s' * (len(self.dirty) > 1)}")
        if self.unpushed:
            parts.append(f"{self.unpushed} unpushed commit{'s' * (self.unpushed > 1)}")
        return f"{self.name}  {self.branch}  {', '.join(parts) or 'clean'}  {self.path}"


def valid_name(name: str) -> str:
    """``name`` if it can name a worktree folder and branch (letters, digits, ``.``, ``_``,
    ``-``; no leading ``-`` or ``.``, no ``..``, no ``.lock`` ending), else WorktreeError."""
    if not _NAME.fullmatch(name) or ".." in name or name.endswith((".lock", ".")):
        raise WorktreeError(
            f"Invalid worktree name {name!r}: use letters, digits, '.', '_' and '-' "
            "(at most 63, starting with a letter or digit)."
        )
    return name


def _git(cwd: Path, *args: str, check: bool = True) -> str:
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise WorktreeError(f"git {args[0]} failed: {exc}") from None
    if check and done.returncode != 0:
        message = (done.stderr or done.stdout).strip().splitlines()
        raise WorktreeError(f"git {args[0]}: {message[-1] if message else 'failed'}")
    return done.stdout


def repo_root(cwd: Path) -> Path:
    """The main checkout's top folder for ``cwd`` (from inside a worktree too)."""
    try:
        common = _git(cwd, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    except WorktreeError:
        raise WorktreeError(f"{cwd} is not in a git repository: -w needs one.") from None
    root = Path(common).parent if Path(common).name == ".git" else None
    if root is None:  # a bare repository, or GIT_DIR elsewhere
        raise WorktreeError(f"{cwd}: the repository has no working tree to branch from.")
    return root


def create_worktree(cwd: Path, name: str, base: str = "HEAD") -> Worktree:
    """A fresh worktree ``name`` on a new branch from ``base`` (WorktreeError if the name, the
    branch or the folder is taken, or ``base`` is no commit)."""
    valid_name(name)
    root = repo_root(cwd)
    path = root.parent / f"{root.name}-{name}"
    branch = BRANCH_PREFIX + name
    if path.exists() or path.is_symlink():
        raise WorktreeError(f"A worktree {name!r} exists already ({path}); pick another name.")
    if _git(root, "branch", "--list", "--", branch).strip():
        raise WorktreeError(f"Branch {branch!r} exists already; pick another name.")
    if base.startswith("-"):
        raise WorktreeError(f"Invalid base {base!r}.")
    sha = _git(
        root,
        "rev-parse",
        "--verify",
        "--quiet",
        "--end-of-options",
        f"{base}^{{commit}}",
        check=False,
    ).strip()
    if not sha:
        raise WorktreeError(f"{base!r} is no commit of this repository.")
    _git(root, "worktree", "add", "-b", branch, "--", str(path), sha)
    (_admin(path) / "pi-base").write_text(sha + "\n")
    return _describe(path, name)


def list_worktrees(cwd: Path) -> list[Worktree]:
    """pi's worktrees of the repository of ``cwd`` (those git knows), by name."""
    root = repo_root(cwd)
    found: dict[str, Path] = {}
    path: Path | None = None
    for line in _git(root, "worktree", "list", "--porcelain").splitlines():
        if line.startswith("worktree "):
            path = Path(line.removeprefix("worktree "))
        elif line.startswith("branch refs/heads/" + BRANCH_PREFIX) and path is not None:
            name = line.removeprefix("branch refs/heads/" + BRANCH_PREFIX)
            if path.name == f"{root.name}-{name}" and path.is_dir():
                found[name] = path
    return [_describe(found[name], name) for name in sorted(found)]


def find_worktree(cwd: Path, name: str) -> Worktree:
    """One of pi's worktrees by name (WorktreeError if there is none)."""
    valid_name(name)
    for tree in list_worktrees(cwd):
        if tree.name == name:
            return tree
    raise WorktreeError(f"No worktree {name!r} (pi worktree list shows them).")


def remove_worktree(cwd: Path, name: str, *, force: bool = False) -> Worktree:
    """Remove a worktree and its branch; refused with uncommitted changes or unpushed commits
    unless ``force`` (the caller asked)."""
    tree = find_worktree(cwd, name)
    if not tree.clean and not force:
        raise WorktreeError(
            f"Worktree {name!r} has {tree.summary().split('  ')[2]}: "
            "keep it, or remove it anyway with --force."
        )
    root = repo_root(cwd)
    _git(root, "worktree", "remove", *(["--force"] if force else []), "--", str(tree.path))
    _git(root, "branch", "-D", "--", tree.branch, check=False)  # its work was kept or refused
    return tree


def _admin(path: Path) -> Path:
    """The worktree's own git folder (``$GIT_DIR/worktrees/<id>``)."""
    return Path(_git(path, "rev-parse", "--absolute-git-dir").strip())


def _describe(path: Path, name: str) -> Worktree:
    base_file = _admin(path) / "pi-base"
    base = base_file.read_text().strip() if base_file.is_file() else ""
    dirty = [line for line in _git(path, "status", "--porcelain").splitlines() if line]
    unpushed = 0
    if base:
        count = _git(path, "rev-list", "--count", "HEAD", "--not", base, "--remotes", check=False)
        unpushed = int(count.strip() or 0)
    branch = _git(path, "rev-parse", "--abbrev-ref", "HEAD", check=False).strip()
    return Worktree(name, path, branch or BRANCH_PREFIX + name, base, dirty, unpushed)
