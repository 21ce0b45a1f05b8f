"""The git directories inside the sandbox: what ordinary commits write stays writable, what makes
git run code later never is (see :mod:`tools.sandbox`).

Writable, so ``git add``, ``commit``, ``stash``, ``checkout -b``, ``merge`` and ``rebase`` work
inside: the git directory's top level (git creates its lock files there: ``index.lock``,
``HEAD.lock``, ``COMMIT_EDITMSG``, ``ORIG_HEAD``...), ``objects/``, ``refs/``, ``logs/``.

Read-only, in every git directory found at start: ``config``, ``config.worktree``,
``commondir``, ``gitdir``, ``hooks/``, ``info/``, ``modules/``, ``worktrees/`` (git takes its
configuration and hooks from these, or from the directory ``commondir`` and ``gitdir`` name), and
the directory ``core.hooksPath`` names when it lies in the workspace (husky's ``.husky``). Each
is bound read-only onto itself, so it can be neither written, nor replaced, nor renamed. One that
is missing is first created by pi, harmless and inside the git directory, where no ``ls`` of the
project shows it: an empty directory (git's own layout has them), ``commondir`` holding ``.``
("the common directory is this one": what git assumes without the file), an empty
``config.worktree`` (read only with ``extensions.worktreeConfig``, and then empty). So none can be
created from inside either (a ``commondir`` written by a command would point git, and the
user's next ``git status``, at a config with ``core.fsmonitor``). pi removes what it created
when the sandbox stops (a later pi, after a ``kill -9``).

The git directories: the workspace's (``$GIT_DIR`` if the commands' environment sets it, else
``.git`` in the workspace or a parent, a directory or a file pointing elsewhere, as for a linked
worktree or a submodule), its common directory, and the nested ones present at start: the
``.git`` of each gitlink (submodule) of the index, and every git directory below
``modules/``. A nested one below a read-only ``modules/`` or ``worktrees/`` is opened again,
writable, with its own entries read-only. A ``.git`` directory inside a writable place is pinned
(bound onto itself: never renamed or replaced); a ``.git`` file is read-only. Repositories that
appear during the run get none of this: nothing marks a directory before it exists. Their
danger is a gitlink to one, which makes the user's ``git status`` run its configuration: that
is undone after each command (:mod:`tools.sandbox._watch`).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

READ_ONLY_FILES = ("config", "config.worktree", "commondir", "gitdir")
READ_ONLY_DIRS = ("hooks", "info", "modules", "worktrees")
NESTED_DIRS = ("modules", "worktrees")
"""Read-only directories whose git directories are opened again, writable."""
CREATED_FILES = ("commondir", "config.worktree")
"""Missing files pi creates (``commondir`` holding ``.``, ``config.worktree`` empty)."""
_GIT_TIMEOUT_S = 10.0


@dataclass
class GitLayout:
    """The mounts of the git directories, in order, and what pi creates for them first."""

    mounts: list[tuple[str, Path]] = field(default_factory=list)
    """``("bind" | "ro-bind", path)``, each onto itself, applied in this order."""
    create_dirs: list[Path] = field(default_factory=list)
    create_files: list[Path] = field(default_factory=list)
    """Missing read-only entries pi creates before the sandbox starts (``commondir``: ``.``)."""
    gitlinks: dict[str, tuple[int, int] | None] = field(default_factory=dict)
    """Each gitlink of the workspace's index at start -> the (device, inode) of its ``.git``."""
    index: Path | None = None
    """The workspace's index file (watched after each command)."""
    work_tree: Path | None = None
    """Where the gitlinks' paths start."""
    git_dir: Path | None = None
    common_dir: Path | None = None


def _read_gitfile(dot: Path) -> Path | None:
    try:
        text = dot.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
    if not text.startswith("gitdir:"):
        return None
    return Path(os.path.normpath(dot.parent / text.removeprefix("gitdir:").strip()))


def find_git_dir(workspace: Path, env: Mapping[str, str]) -> tuple[Path, Path | None] | None:
    """(the git directory, the ``.git`` file naming it, if any) of ``workspace``."""
    named = env.get("GIT_DIR")
    if named:
        return Path(os.path.normpath(workspace / os.path.expanduser(named))), None
    for directory in [workspace, *workspace.parents]:
        dot = directory / ".git"
        if dot.is_dir() and not dot.is_symlink():
            return dot, None
        if dot.is_file() and not dot.is_symlink():
            found = _read_gitfile(dot)
            return (found, dot) if found is not None else None
    return None


def common_dir(git_dir: Path, env: Mapping[str, str]) -> Path:
    """Where ``git_dir`` keeps its config, hooks and objects (``commondir``, or itself)."""
    named = env.get("GIT_COMMON_DIR")
    if named:
        return Path(os.path.normpath(git_dir / named))
    try:
        pointer = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return git_dir
    return Path(os.path.normpath(git_dir / pointer)) if pointer else git_dir


def _is_git_dir(path: Path) -> bool:
    """A repository's git directory (``objects/``) or a linked worktree's (``commondir``)."""
    return (path / "HEAD").is_file() and (
        (path / "objects").is_dir() or (path / "commondir").is_file()
    )


def _hooks_path(common: Path, work_tree: Path, workspace: Path) -> Path | None:
    """The directory ``core.hooksPath`` names in the repository's config, when it lies inside
    the workspace. Read here, not by running git (this is on the way to the first command): the
    last ``hooksPath`` under ``[core]``; an ``[include]``d file is not followed."""
    try:
        text = (common / "config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    section, value = "", ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line[1:].split("]", 1)[0].strip().lower()
            line = line.split("]", 1)[1].strip() if "]" in line else ""
        key, equals, rest = line.partition("=")
        if section == "core" and equals and key.strip().lower() == "hookspath":
            value = rest.split("#", 1)[0].split(";", 1)[0].strip().strip('"')
    if not value:
        return None
    path = Path(os.path.normpath(work_tree / os.path.expanduser(value)))  # relative: to the top
    return path if path.is_relative_to(workspace) and path.is_dir() else None


def gitlinks(git_dir: Path, work_tree: Path) -> list[str]:
    """The paths of the gitlinks (mode 160000) in the index (no hook, no fsmonitor runs)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_DIR=str(git_dir), GIT_WORK_TREE=str(work_tree), GIT_OPTIONAL_LOCKS="0")
    try:
        done = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", "ls-files", "--stage", "-z"],
            capture_output=True,
            env=env,
            cwd=work_tree,
            timeout=_GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return []
    found = []
    for record in done.stdout.split(b"\0"):
        if record.startswith(b"160000 "):
            found.append(os.fsdecode(record.partition(b"\t")[2]))
    return found


def identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of ``path`` itself, or None when it does not exist."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


class _Builder:
    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.layout = GitLayout()
        self.seen: set[Path] = set()

    def allowed(self, path: Path) -> bool:
        """A nested git directory is opened only inside the workspace or a git directory found
        before (a ``.git`` file may name any repository of the user's)."""
        roots = [self.workspace, *self.seen]
        return any(path == root or path.is_relative_to(root) for root in roots)

    def git_dir(self, path: Path) -> None:
        """``path`` writable (pinned or bound), then its dangerous entries read-only."""
        if path in self.seen or not _is_git_dir(path):
            return
        self.seen.add(path)
        # Pinned where it is writable already (a bind onto itself: never renamed), bound where
        # it is not (a worktree's repository elsewhere), again below a read-only parent.
        self.layout.mounts.append(("bind", path))
        for name in READ_ONLY_FILES:
            entry = path / name
            if os.path.lexists(entry):
                if not entry.is_symlink():
                    self.layout.mounts.append(("ro-bind", entry))
            elif name in CREATED_FILES:
                self.layout.create_files.append(entry)
                self.layout.mounts.append(("ro-bind", entry))
        for name in READ_ONLY_DIRS:
            entry = path / name
            if not os.path.lexists(entry):
                self.layout.create_dirs.append(entry)
            elif entry.is_symlink():
                continue
            self.layout.mounts.append(("ro-bind", entry))
        for name in NESTED_DIRS:
            for nested in _children(path / name):
                self.git_dir(nested)

    def dot_file(self, dot: Path) -> None:
        self.layout.mounts.append(("ro-bind", dot))


def _children(directory: Path) -> list[Path]:
    try:
        return sorted(p for p in directory.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return []


def git_layout(workspace: Path, env: Mapping[str, str]) -> GitLayout:
    """The git mounts for ``workspace`` (``env``: the commands' environment)."""
    found = find_git_dir(workspace, env)
    builder = _Builder(workspace)
    if found is None:
        return builder.layout
    git_dir, dot = found
    common = common_dir(git_dir, env)
    layout = builder.layout
    layout.git_dir, layout.common_dir = git_dir, common
    if dot is not None:
        builder.dot_file(dot)
    builder.git_dir(common)
    builder.git_dir(git_dir)
    work_tree = _work_tree(workspace, git_dir, dot, env)
    hooks = _hooks_path(common, work_tree, workspace)
    if hooks is not None:
        layout.mounts.append(("ro-bind", hooks))
    if (git_dir / "index").is_file():
        layout.index = git_dir / "index"
        layout.work_tree = work_tree
        for link in gitlinks(git_dir, work_tree):
            _nested(builder, work_tree / link / ".git", link)
    return layout


def _work_tree(workspace: Path, git_dir: Path, dot: Path | None, env: Mapping[str, str]) -> Path:
    """Where the files of ``git_dir`` are checked out (relative paths of git start there)."""
    if env.get("GIT_DIR"):
        named = env.get("GIT_WORK_TREE")
        return Path(os.path.normpath(workspace / named)) if named else workspace
    return dot.parent if dot is not None else git_dir.parent


def _nested(builder: _Builder, dot: Path, link: str) -> None:
    """A submodule's ``.git``: its git directory protected like the workspace's."""
    builder.layout.gitlinks[link] = identity(dot)
    if dot.is_symlink():
        return
    if dot.is_dir():
        builder.git_dir(dot)
    elif dot.is_file():
        builder.dot_file(dot)
        target = _read_gitfile(dot)
        if target is not None and builder.allowed(target):
            builder.git_dir(target)
