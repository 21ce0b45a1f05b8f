"""The workspace (the working directory plus extra directories) and the protected paths."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from tools.sandbox import DEFAULT_PROTECTED  # one list: the sandbox mounts them read-only

PROTECTED_PATHS: tuple[str, ...] = DEFAULT_PROTECTED
"""Paths (relative to a workspace root) whose edits always ask, in every mode but
``bypassPermissions``: they run code or hold configuration. The sandbox mounts them read-only.
Edits anywhere under ``.git/`` ask too (:func:`is_protected`)."""

_PROTECTED_DIRS = frozenset({".git", ".pi", ".claude", ".vscode", ".idea"})
_PROTECTED_FILES = frozenset({".mcp.json", ".envrc"})


def real(path: str | Path, cwd: Path | None = None) -> Path:
    """``path`` made absolute (against ``cwd``) with every symlink resolved (even if missing)."""
    text = os.path.expanduser(str(path))
    if cwd is not None and not os.path.isabs(text):
        text = os.path.join(cwd, text)
    return Path(os.path.realpath(text))


def is_protected(path: Path) -> bool:
    """Whether writing ``path`` (already resolved) touches a protected location.

    Any path component counts, so a nested repository's ``.git/hooks`` is protected too.
    """
    parts = path.parts
    return any(part in _PROTECTED_DIRS for part in parts[:-1]) or (
        bool(parts) and (parts[-1] in _PROTECTED_DIRS or parts[-1] in _PROTECTED_FILES)
    )


class Workspace:
    """Where the agent may read (and, by mode, write) without asking.

    Args:
        cwd: the working directory.
        extra: additional directories (``--add-dir``, ``permissions.additionalDirectories``).
    """

    def __init__(self, cwd: Path, extra: Iterable[Path] = ()) -> None:
        self.cwd = real(cwd)
        self.roots: list[Path] = [self.cwd]
        for directory in extra:
            resolved = real(directory, self.cwd)
            if resolved not in self.roots:
                self.roots.append(resolved)

    @property
    def extra_dirs(self) -> list[Path]:
        """The resolved extra directories (the sandbox mounts them writable too)."""
        return self.roots[1:]

    def add(self, directory: Path) -> None:
        """Add an extra directory for the rest of the session."""
        resolved = real(directory, self.cwd)
        if resolved not in self.roots:
            self.roots.append(resolved)

    def contains(self, path: Path) -> bool:
        """Whether the resolved ``path`` lies inside a root."""
        return any(path == root or path.is_relative_to(root) for root in self.roots)

    def resolve(self, path: str | Path, cwd: Path | None = None) -> Path:
        """``path`` resolved against ``cwd`` (default: the working directory)."""
        return real(path, cwd or self.cwd)
