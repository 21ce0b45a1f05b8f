"""The component-by-component, no-follow walk behind :mod:`tools.safe_files` (its private half)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
"""Open a directory to hold it: no symlink followed, usable only as a ``dir_fd``."""
_MAX_LINKS = 40


_CREATED: set[str] = set()


def note_created(path: str | Path) -> None:
    """Record that pi itself created ``path`` (a real path): the sandbox's watch leaves it."""
    _CREATED.add(os.path.normpath(os.fspath(path)))


def created_by_pi(path: str | Path) -> bool:
    """Whether pi itself created ``path`` (through this primitive, or said so)."""
    return os.path.realpath(path) in _CREATED


class PathChanged(OSError):
    """The path is not what was checked: a component is now a symlink or not a directory."""


class NotARegularFile(OSError):
    """The path names a directory, a FIFO, a device or a socket."""


def components(path: str) -> list[str]:
    return [part for part in path.split("/") if part and part != "."]


class Walk:
    """Directories held from ``/`` (or a root descriptor) down to the current one."""

    def __init__(self, root_fd: int, root: Path, follow: bool, create: bool, owned: bool) -> None:
        self.stack: list[tuple[int, Path]] = [(root_fd, root)]
        self.base = 0 if owned else 1
        """How many descriptors at the bottom of the stack belong to the caller."""
        self.follow = follow
        self.create = create
        self.links = 0

    @property
    def fd(self) -> int:
        return self.stack[-1][0]

    @property
    def here(self) -> Path:
        return self.stack[-1][1]

    def close(self, keep: int = -1) -> None:
        for fd, _ in self.stack[self.base :]:
            if fd != keep:
                os.close(fd)
        self.stack = self.stack[: self.base]

    def up(self) -> None:
        if len(self.stack) > max(self.base, 1):  # the parent of / is /
            os.close(self.stack.pop()[0])

    def enter(self, name: str, todo: list[str]) -> None:
        """Go into ``name``; a symlink is spliced into ``todo`` (follow) or refused."""
        try:
            fd = os.open(name, DIR_FLAGS, dir_fd=self.fd)
        except FileNotFoundError:
            if not self.create:
                raise FileNotFoundError(
                    2, "No such file or directory", str(self.here / name)
                ) from None
            try:
                os.mkdir(name, 0o777, dir_fd=self.fd)
                note_created(self.here / name)
            except FileExistsError:
                pass  # made meanwhile: opened (and checked) below like any other
            fd = self._open_checked(name)
        except NotADirectoryError:
            fd = self._not_a_directory(name, todo)
            if fd < 0:
                return
        self.stack.append((fd, self.here / name))

    def _open_checked(self, name: str) -> int:
        try:
            return os.open(name, DIR_FLAGS, dir_fd=self.fd)
        except NotADirectoryError:
            raise PathChanged(f"{self.here / name} is not a directory now") from None

    def _not_a_directory(self, name: str, todo: list[str]) -> int:
        info = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):  # it was not one a moment ago: swapped meanwhile
            raise PathChanged(f"{self.here / name} is a symlink now (it keeps changing)")
        if not stat.S_ISLNK(info.st_mode):
            raise NotADirectoryError(20, "Not a directory", str(self.here / name))
        if not self.follow:
            raise PathChanged(
                f"{self.here / name} is a symlink now (the path changed after it was checked)"
            )
        self.splice(os.readlink(name, dir_fd=self.fd), todo)
        return -1

    def splice(self, target: str, todo: list[str]) -> None:
        self.links += 1
        if self.links > _MAX_LINKS:
            raise OSError(40, "Too many levels of symbolic links", str(self.here))
        if target.startswith("/"):
            if self.base:  # a walk below a root never leaves it (and never follows)
                raise PathChanged(f"{self.here} holds a symlink out of the tree: {target}")
            self.close()
            self.stack = [(os.open("/", DIR_FLAGS), Path("/"))]
        todo[:0] = components(target)


def walk_to_parent(walk: Walk, parts: list[str], follow_last: bool = True) -> str:
    """Enter every directory of ``parts`` but the last; follow a final symlink if the walk
    follows symlinks and ``follow_last``. Returns the final name."""
    todo = list(parts)
    while todo:
        name = todo.pop(0)
        if name == "..":
            walk.up()
            continue
        if todo:
            walk.enter(name, todo)
            continue
        if walk.follow and follow_last:
            try:
                info = os.stat(name, dir_fd=walk.fd, follow_symlinks=False)
            except FileNotFoundError:
                return name
            if stat.S_ISLNK(info.st_mode):
                walk.splice(os.readlink(name, dir_fd=walk.fd), todo)
                continue
        return name
    raise IsADirectoryError(21, "Is a directory", str(walk.here))
