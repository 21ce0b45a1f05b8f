"""The one primitive for every file pi changes in its own process: the path checked is the path
written, whatever another process does to the tree meanwhile.

Used by ``edit`` and ``write``, checkpoints' restore (``/rewind``, ``pi rewind``), the HTML
export and the ACP client-buffer tools. The permission engine resolves a call's path once (every
symlink followed) and decides on that *real* path; the tool then writes exactly that path:

* **No-follow walk with held directories.** The path is opened from ``/`` one component at a
  time with ``openat(parent_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW)``, each directory held
  by its descriptor. A decided path has no symlink left in it, so a component that is a symlink
  *now* means the tree changed after the check: the write is refused, and the model reads why.
  Nothing is resolved a second time (``resolve``-then-``open`` is what a racing process wins).
* **Everything through the held descriptor.** The file is read with ``O_NOFOLLOW``, the temp
  file is created in the held directory (``O_CREAT | O_EXCL | O_NOFOLLOW``), and
  ``renameat(dir_fd, tmp, dir_fd, name)`` replaces the entry: a rename never follows a symlink, so
  a link planted at the final name is replaced, not written through.
* **Renames of held directories** cannot move one into danger: inside the sandbox every protected
  path is a read-only mount or cannot be created at all, ``.git`` and every writable root are
  separate mounts (a rename across them fails with EXDEV), and outside them nothing is writable.

Why not write inside the sandbox instead (where protected paths are read-only mounts): a write
the user approved outside the workspace, the sandbox off or unavailable, and the export all
need the same primitive outside it; a write through the sandbox would still follow a symlink
flipped to another writable file (a different file than the one approved); and a round trip to
the process helper costs more than the whole walk (a few microseconds per component).

Paths the user typed (the export's file name, a tool call no permission check decided on)
are resolved with :func:`pin` ``follow=True``: symlinks are followed *in this process*, on the
held descriptors (``readlinkat``), so the resolution itself cannot be redirected either.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from tools._fs_walk import (
    DIR_FLAGS,
    NotARegularFile,
    PathChanged,
    Walk,
    components,
    created_by_pi,
    note_created,
    walk_to_parent,
)
from tools._paths import resolve_path

_UMASK: int | None = None

__all__ = [
    "CheckedPaths",
    "call_target",
    "created_by_pi",
    "note_created",
    "refusal",
    "NotARegularFile",
    "PathChanged",
    "Place",
    "open_root",
    "pin",
    "pin_under",
]


def _umask() -> int:
    global _UMASK
    if _UMASK is None:
        # os.umask can only be read by setting it; do it once and restore at once.
        _UMASK = os.umask(0o022)
        os.umask(_UMASK)
    return _UMASK


class CheckedPaths:
    """The real paths a permission check decided on, per tool call.

    The gate records them before the call runs; the tool takes them when it runs and writes
    exactly those (:func:`pin` with ``follow=False``). Keyed by the call's path made absolute
    against the real working directory (as the engine resolves it).
    """

    LIMIT = 256

    def __init__(self) -> None:
        self._calls: dict[str, dict[str, Path]] = {}

    def record(self, call_id: str, paths: Mapping[str, Path]) -> None:
        """The decided real ``paths`` (as given -> real) of the call ``call_id``."""
        self._calls.pop(call_id, None)
        self._calls[call_id] = dict(paths)
        while len(self._calls) > self.LIMIT:  # calls blocked after the check never take theirs
            del self._calls[next(iter(self._calls))]

    def take(self, call_id: str) -> dict[str, Path] | None:
        """The decided paths of ``call_id`` (None: no check decided on this call)."""
        return self._calls.pop(call_id, None)


def call_target(cwd: str | Path, raw: str, decided: Mapping[str, Path] | None) -> tuple[Path, bool]:
    """Where a tool call's path ``raw`` is read or written, and whether symlinks are followed:
    the real path the permission check decided on (``decided``, from :class:`CheckedPaths`), not
    followed; else (no check decided: an embedder, the bypass mode) ``raw`` resolved against
    ``cwd`` like the engine does, followed on held descriptors by :func:`pin`."""
    if decided is None:
        return Path(os.path.normpath(resolve_path(cwd, raw))), True
    # Resolved against the real working directory, as the engine resolves it.
    real = decided.get(os.path.normpath(resolve_path(os.path.realpath(cwd), raw)))
    if real is None:  # the arguments changed after the check (a hook rewrote them)
        raise PathChanged(f"{raw} is not the path the permission check decided on")
    return real, False


def refusal(shown: str, exc: PathChanged) -> str:
    """What the model reads when a file effect is refused because its path changed."""
    return (
        f"Refused: {exc}. Nothing was changed at {shown}: a file is only written or read at "
        "the exact path the permission check approved, and something changed that path since "
        "(a symlink planted or swapped by another process). Look at it (ls -la) before trying "
        "again."
    )


class Place:
    """An entry ``name`` in a directory held open (``dir_fd``): where a file is read, written or
    removed. ``path`` is where it was found (for messages). Close it (or use ``with``)."""

    def __init__(self, dir_fd: int, name: str, path: Path) -> None:
        self.dir_fd = dir_fd
        self.name = name
        self.path = path

    def __enter__(self) -> Place:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the directory."""
        if self.dir_fd >= 0:
            os.close(self.dir_fd)
            self.dir_fd = -1

    def lstat(self) -> os.stat_result | None:
        """The entry itself (a symlink is not followed); None when it does not exist."""
        try:
            return os.stat(self.name, dir_fd=self.dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def open_read(self) -> BinaryIO:
        """The regular file, opened for reading (never through a symlink). Raises
        ``FileNotFoundError``, ``IsADirectoryError``, :class:`NotARegularFile` (a FIFO is never
        waited on), :class:`PathChanged` (the entry is a symlink now)."""
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(self.name, flags, dir_fd=self.dir_fd)
        except OSError as exc:
            raise self._explained(exc) from None
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError(21, "Is a directory", str(self.path))
            if not stat.S_ISREG(info.st_mode):
                raise NotARegularFile(f"{self.path} is not a regular file")
        except BaseException:
            os.close(fd)
            raise
        return os.fdopen(fd, "rb")

    def read_bytes(self) -> bytes:
        """The file's bytes (see :meth:`open_read`)."""
        with self.open_read() as handle:
            return handle.read()

    def write_atomic(
        self, data: bytes, *, over_symlink: bool = False, mode: int | None = None
    ) -> bool:
        """Replace the entry with a file holding ``data`` (temp file in the held directory, then
        a rename): a crash leaves the old file or the new one. An existing file keeps its
        permission bits (``mode``: these bits instead, less the umask); a symlink there is
        refused (:class:`PathChanged`), or replaced itself with ``over_symlink`` (never written
        through). Returns whether a file was there.
        Raises ``IsADirectoryError``, :class:`NotARegularFile`, :class:`PathChanged` or the
        ``OSError`` of the write."""
        info = self._replaceable(over_symlink)
        if mode is not None:
            mode &= ~_umask()
        else:
            mode = info.st_mode & 0o7777 if info is not None else 0o666 & ~_umask()
        temp = self._temp_name()
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(temp, flags, 0o600, dir_fd=self.dir_fd)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
                os.fchmod(fd, mode)
            finally:
                os.close(fd)
            os.replace(temp, self.name, src_dir_fd=self.dir_fd, dst_dir_fd=self.dir_fd)
        except BaseException:
            try:
                os.unlink(temp, dir_fd=self.dir_fd)
            except OSError:
                pass
            raise
        if info is None:
            note_created(self.path)
        return info is not None

    def _replaceable(self, over_symlink: bool) -> os.stat_result | None:
        """The regular file there (None: nothing, or a symlink to replace); else raises."""
        info = self.lstat()
        if info is None or (over_symlink and stat.S_ISLNK(info.st_mode)):
            return None
        if stat.S_ISLNK(info.st_mode):
            raise PathChanged(f"{self.path} is a symlink now")
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(21, "Is a directory", str(self.path))
        if not stat.S_ISREG(info.st_mode):
            raise NotARegularFile(f"{self.path} is not a regular file")
        return info

    def symlink(self, target: str) -> None:
        """Make the entry a symlink to ``target`` (atomically replacing a file or link)."""
        temp = self._temp_name()
        note_created(self.path)
        os.symlink(target, temp, dir_fd=self.dir_fd)
        try:
            os.replace(temp, self.name, src_dir_fd=self.dir_fd, dst_dir_fd=self.dir_fd)
        except BaseException:
            try:
                os.unlink(temp, dir_fd=self.dir_fd)
            except OSError:
                pass
            raise

    def unlink(self) -> None:
        """Remove the entry (a symlink itself, never what it points to)."""
        os.unlink(self.name, dir_fd=self.dir_fd)

    def _temp_name(self) -> str:
        return f".pi-{os.getpid()}-{os.urandom(4).hex()}.tmp"

    def _explained(self, exc: OSError) -> OSError:
        if exc.errno == 40:  # ELOOP: O_NOFOLLOW met a symlink
            return PathChanged(f"{self.path} is a symlink now")
        return exc


def pin(
    path: str | Path, *, follow: bool, create_dirs: bool = False, follow_last: bool = True
) -> Place:
    """The entry ``path`` (absolute) in its directory, held open.

    ``follow=False`` (a path a permission check decided on, already real): any symlink on the
    way raises :class:`PathChanged`. ``follow=True`` (a path the user typed): symlinks, a final
    one too unless ``follow_last`` is False, are followed on the held descriptors.
    ``create_dirs`` creates missing
    directories (each opened no-follow right after). Raises ``FileNotFoundError``,
    ``NotADirectoryError``, ``IsADirectoryError`` (the path is ``/``), :class:`PathChanged`.
    """
    text = os.path.normpath(os.fspath(path))
    if not text.startswith("/"):
        raise ValueError(f"not an absolute path: {text}")
    walk = Walk(os.open("/", DIR_FLAGS), Path("/"), follow, create_dirs, owned=True)
    try:
        name = walk_to_parent(walk, components(text), follow_last)
    except BaseException:
        walk.close()
        raise
    fd, here = walk.stack[-1]
    walk.close(keep=fd)
    return Place(fd, name, here / name)


def pin_under(root_fd: int, root: Path, relative: str, *, create_dirs: bool = False) -> Place:
    """The entry ``relative`` below the directory ``root_fd`` (``root``: its path, for messages),
    never leaving it: no symlink is followed and ``..`` is refused."""
    parts = components(relative)
    if not parts or ".." in parts:
        raise PathChanged(f"{relative!r} is not a path inside {root}")
    walk = Walk(root_fd, root, follow=False, create=create_dirs, owned=False)
    try:
        name = walk_to_parent(walk, parts)
    except BaseException:
        walk.close()
        raise
    fd, here = walk.stack[-1]
    if fd == root_fd:
        fd = os.dup(root_fd)
    walk.close(keep=fd)
    return Place(fd, name, here / name)


@contextmanager
def open_root(path: str | Path) -> Iterator[int]:
    """A directory held open (no symlink followed on the way) for :func:`pin_under`."""
    with pin(path, follow=False) as place:
        fd = os.open(place.name, DIR_FLAGS, dir_fd=place.dir_fd)
    try:
        yield fd
    finally:
        os.close(fd)
