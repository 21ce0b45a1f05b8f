"""Which paths the sandbox makes writable, hides or protects (see :mod:`tools.sandbox`)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from tools._bwrap import Layout

DEFAULT_PROTECTED: tuple[str, ...] = (
    ".git/hooks",
    ".git/config",
    ".pi",
    ".claude",
    ".mcp.json",
    ".envrc",
    ".vscode",
    ".idea",
)
"""Read-only even inside the workspace (relative to it): what runs code outside the sandbox
later (git hooks and config, pi/Claude/editor settings, direnv). The shell passes its own list."""

DEFAULT_HIDDEN: tuple[str, ...] = (
    "~/.ssh",
    "~/.aws",
    "~/.gnupg",
    "~/.netrc",
    "~/.config/gcloud",
    "~/.docker/config.json",
    "~/.kube",
)
"""Credentials that are not visible inside (besides ``PI_HOME`` and the user's deny rules)."""

CACHE_DIRS: tuple[str, ...] = (
    "~/.cache",
    "~/.npm",
    "~/.cargo/registry",
    "~/.cargo/git",
    "~/go/pkg",
)
"""Tool-chain caches made writable when they exist (pip's lives in ``~/.cache/pip``)."""

CACHE_ENV: tuple[str, ...] = (
    "XDG_CACHE_HOME",
    "PIP_CACHE_DIR",
    "npm_config_cache",
    "GOMODCACHE",
    "GOCACHE",
)
"""Environment variables naming more cache directories (made writable when they exist)."""


def expand(path: str | Path, base: Path) -> Path:
    """``~`` expanded, relative paths against ``base``, normalised (symlinks kept)."""
    expanded = Path(os.path.expanduser(str(path)))
    return Path(os.path.normpath(base / expanded))


def cache_dirs(env: Mapping[str, str]) -> list[Path]:
    """The existing cache directories of :data:`CACHE_DIRS` and :data:`CACHE_ENV`."""
    found = [expand(p, Path.home()) for p in CACHE_DIRS]
    found += [expand(env[name], Path.home()) for name in CACHE_ENV if env.get(name)]
    return [p for p in found if p.is_dir()]


def _gitdir(workspace: Path) -> tuple[Path, Path | None] | None:
    """(the git directory, the ``.git`` file pointing to it if any) for ``workspace``."""
    for directory in [workspace, *workspace.parents]:
        dot = directory / ".git"
        if dot.is_dir() and not dot.is_symlink():
            return dot, None
        if dot.is_file():
            try:
                text = dot.read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError):
                return None
            if not text.startswith("gitdir:"):
                return None
            return (directory / text.removeprefix("gitdir:").strip()).resolve(), dot
    return None


def git_paths(workspace: Path, names: Iterable[str]) -> tuple[list[Path], list[Path], list[Path]]:
    """(writable, pinned, protected) for the repository around ``workspace``.

    ``git commit`` must work inside, so the git directory is writable even when it lies
    outside the workspace (a worktree, or a subdirectory of a repository); its hooks and config
    (``.git/...`` names of the protected list) stay read-only, the ``.git`` file of a worktree
    too, and a ``.git`` directory is pinned so it cannot be swapped for another.
    """
    found = _gitdir(workspace)
    if found is None:
        return [], [], []
    gitdir, dotfile = found
    common = gitdir
    try:
        pointer = (gitdir / "commondir").read_text(encoding="utf-8").strip()
        common = (gitdir / pointer).resolve()
    except (OSError, UnicodeDecodeError):
        pass
    writable: list[Path] = []
    pinned: list[Path] = []
    # A worktree's own git directory lies inside the common one: one bind covers both.
    for directory in [common] if gitdir.is_relative_to(common) else [gitdir, common]:
        inside = directory.is_relative_to(workspace)
        (pinned if inside else writable).append(directory)
    protected = [common / name.removeprefix(".git/") for name in names if name.startswith(".git/")]
    if (gitdir / "config.worktree").exists():
        protected.append(gitdir / "config.worktree")
    if dotfile is not None:
        protected.append(dotfile)
    return writable, pinned, protected


def build_layout(
    workspace: Path,
    *,
    writable: Sequence[Path],
    hidden: Sequence[Path],
    protected: Sequence[str],
    network: bool,
    env: Mapping[str, str],
) -> Layout:
    """The sandbox's layout for ``workspace`` (see :class:`tools._bwrap.Layout`)."""
    git_writable, pinned, git_protected = git_paths(workspace, protected)
    plain = [expand(name, workspace) for name in protected if not name.startswith(".git/")]
    return Layout(
        workspace=workspace,
        writable=[*writable, *cache_dirs(env), *git_writable],
        pinned=pinned,
        hidden=[expand(p, Path.home()) for p in DEFAULT_HIDDEN] + list(hidden),
        protected=[*git_protected, *plain],
        runtime=runtime_paths(),
        network=network,
    )


def runtime_paths() -> list[Path]:
    """pi's interpreter (the venv and the Python it is made from) and the helper's folder."""
    import sys

    paths = [Path(sys.prefix), Path(sys.base_prefix), Path(__file__).resolve().parent]
    link = Path(sys.executable)
    for _ in range(40):  # every hop of a symlinked interpreter (a venv's python → the real one)
        paths.append(link.parent)
        if not link.is_symlink():
            break
        link = link.parent / os.readlink(link)
    return paths
