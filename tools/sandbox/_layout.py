"""Which paths the sandbox makes writable, hides or protects (see :mod:`tools.sandbox`)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from tools.sandbox._bwrap import Layout
from tools.sandbox._git_layout import GitLayout

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


def build_layout(
    workspace: Path,
    *,
    writable: Sequence[Path],
    hidden: Sequence[Path],
    protected: Sequence[str],
    network: bool,
    env: Mapping[str, str],
    git: GitLayout | None = None,
) -> Layout:
    """The sandbox's layout for ``workspace`` (see :class:`tools.sandbox._bwrap.Layout`); ``git``: its
    git directories' layout (:func:`tools.sandbox._git_layout.git_layout`), none when not given."""
    plain = [expand(name, workspace) for name in protected if not name.startswith(".git/")]
    return Layout(
        workspace=workspace,
        writable=[*writable, *cache_dirs(env)],
        git=git.mounts if git is not None else [],
        hidden=[expand(p, Path.home()) for p in DEFAULT_HIDDEN] + list(hidden),
        protected=plain,
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
