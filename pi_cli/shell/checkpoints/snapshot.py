"""Taking a snapshot of the workspace into the shadow repository, comparing and restoring trees.

A snapshot is incremental: ``git ls-files -t -o -m -d --exclude-standard`` against the
session's index lists what is new, changed or gone since the last one (``.gitignore`` files of
the workspace respected), only those files are hashed (``update-index``), and ``write-tree``
names the result. A file over the per-file limit is left out (and never touched by a restore);
a snapshot that would add more than the per-snapshot limits is skipped as a whole.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pi_cli.shell.checkpoints.git import GitError, ShadowGit

if TYPE_CHECKING:
    from pi_cli.shell.config.settings import CheckpointSettings

LIST_TIMEOUT_S = 30.0
PACK_FROM_FILES = 64
_BROKEN_INDEX = re.compile(
    r"invalid object|error building trees|unable to read|corrupt|bad signature|index file", re.I
)
_PAIR_HEADER = re.compile(rb"([0-9a-f]{40,64}) ([0-9a-f]{40,64})\n")


class SnapshotSkipped(Exception):  # an outcome, said to the user
    """This snapshot was not taken (the workspace is too big); the message says why.

    ``whole_workspace``: it was the first snapshot, so the workspace itself is over a limit.
    """

    def __init__(self, message: str, whole_workspace: bool = False) -> None:
        super().__init__(message)
        self.whole_workspace = whole_workspace


@dataclass(frozen=True)
class Limits:
    """Size limits of snapshots (see :class:`~pi_cli.shell.config.settings.CheckpointSettings`)."""

    max_file_bytes: int = 10_000_000
    max_snapshot_bytes: int = 300_000_000
    max_files: int = 20_000

    @classmethod
    def of(cls, settings: CheckpointSettings) -> Limits:
        """The limits a settings section asks for."""
        return cls(settings.max_file_bytes, settings.max_snapshot_bytes, settings.max_files)


@dataclass
class Snapshot:
    """A snapshot taken: its tree, and what it had to read."""

    tree: str
    changed: int = 0  # files added, changed or removed since the session's last snapshot
    bytes_read: int = 0
    too_big: list[tuple[str, int]] = field(default_factory=list)  # (path, size) left out
    seconds: float = 0.0


@dataclass(frozen=True)
class FileStat:
    """One file's change between two trees (``added``/``removed`` lines; -1 for binary)."""

    path: str
    added: int
    removed: int


def _mb(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


def take_snapshot(
    git: ShadowGit, session_id: str, limits: Limits, known_tree: str | None = None
) -> Snapshot:
    """Snapshot the workspace into ``session_id``'s index; raises SnapshotSkipped/GitError.

    ``known_tree``: the tree of this index's last snapshot; returned without ``write-tree``
    when nothing changed since. A broken index (objects it names were pruned) is rebuilt.
    """
    start = time.perf_counter()
    git.ensure()
    with git.session_lock(session_id):
        index = git.index_for(session_id)
        _remove_stale_lock_file(index)
        try:
            snap = _snapshot(git, index, limits, known_tree)
        except GitError as exc:
            if not index.exists() or not _BROKEN_INDEX.search(str(exc)):
                raise
            index.unlink()  # start over from the files themselves, once
            snap = _snapshot(git, index, limits, None)
    snap.seconds = time.perf_counter() - start
    return snap


def _snapshot(git: ShadowGit, index: Path, limits: Limits, known_tree: str | None) -> Snapshot:
    fresh = not index.exists()
    listing = git.run(
        "ls-files", "-z", "-t", "-o", "-m", "-d", "--exclude-standard",
        index=index, timeout=LIST_TIMEOUT_S,
    )  # fmt: skip
    update, force_remove, too_big, size = _classify(git.workspace, listing, limits)
    if len(update) > limits.max_files:
        raise SnapshotSkipped(
            f"{len(update)} files to snapshot, more than the limit of {limits.max_files} "
            "(checkpoints.maxFiles)",
            fresh,
        )
    if size > limits.max_snapshot_bytes:
        raise SnapshotSkipped(
            f"{_mb(size)} to snapshot, more than the limit of "
            f"{_mb(limits.max_snapshot_bytes)} (checkpoints.maxSnapshotBytes)",
            fresh,
        )
    if update:
        # Many new files (a first snapshot): stream them into one pack instead of a loose
        # object file each (3x faster); only for this command, so diffs still count lines.
        packed = ["-c", "core.bigFileThreshold=1"] if len(update) > PACK_FROM_FILES else []
        git.run(
            *packed, "update-index", "-z", "--add", "--remove", "--replace", "--stdin",
            index=index, stdin=b"\0".join(update) + b"\0",
        )  # fmt: skip
    if force_remove:
        git.run(
            "update-index", "-z", "--force-remove", "--stdin",
            index=index, stdin=b"\0".join(force_remove) + b"\0",
        )  # fmt: skip
    changed = len(update) + len(force_remove)
    if changed == 0 and known_tree and not fresh:
        tree = known_tree
    else:
        tree = git.run("write-tree", index=index).strip().decode()
    return Snapshot(tree, changed, size, too_big)


def _remove_stale_lock_file(index: Path) -> None:
    """A ``.lock`` left by a killed git (we hold the session lock: nobody else uses it)."""
    lock = index.with_name(index.name + ".lock")
    with contextlib.suppress(OSError):
        lock.unlink()


def _classify(
    workspace: Path, listing: bytes, limits: Limits
) -> tuple[list[bytes], list[bytes], list[tuple[str, int]], int]:
    """(paths to update, tracked paths to drop, files too big, bytes to read)."""
    tags: dict[bytes, set[int]] = {}
    for record in listing.split(b"\0"):
        if len(record) > 2:
            tags.setdefault(record[2:], set()).add(record[0])
    update: list[bytes] = []
    force_remove: list[bytes] = []
    too_big: list[tuple[str, int]] = []
    size = 0
    for raw, kinds in tags.items():
        if raw.endswith(b"/"):
            continue  # a nested repository: not covered (its own git has it)
        tracked = ord("?") not in kinds
        if ord("R") in kinds:
            update.append(raw)  # gone: --remove drops it
            continue
        try:
            info = os.lstat(workspace / os.fsdecode(raw))
        except OSError:
            update.append(raw)
            continue
        if stat.S_ISLNK(info.st_mode):
            update.append(raw)
        elif not stat.S_ISREG(info.st_mode):
            if tracked:
                force_remove.append(raw)  # became a directory, a fifo...
        elif info.st_size > limits.max_file_bytes:
            too_big.append((os.fsdecode(raw), info.st_size))
            if tracked:
                force_remove.append(raw)
        else:
            update.append(raw)
            size += info.st_size
    return update, force_remove, too_big, size


# ---------------------------------------------------------------------------- comparing


def name_status(git: ShadowGit, old: str, new: str) -> list[tuple[str, str]]:
    """``(status, path)`` for each file differing from tree ``old`` to ``new`` (A, M, D, T)."""
    if old == new:
        return []
    out = git.run("diff-tree", "-r", "-z", "--no-renames", "--name-status", old, new)
    parts = out.split(b"\0")
    return [
        (parts[i].decode(), os.fsdecode(parts[i + 1]))
        for i in range(0, len(parts) - 1, 2)
        if parts[i]
    ]


def changed_paths(git: ShadowGit, old: str, new: str) -> set[str]:
    """The files differing between two trees."""
    return {path for _, path in name_status(git, old, new)}


def numstats(git: ShadowGit, pairs: list[tuple[str, str]]) -> list[list[FileStat]]:
    """Line counts per file for each ``(old, new)`` tree pair, in one ``git`` call."""
    wanted = [(a, b) for a, b in pairs if a != b]
    found: dict[tuple[str, str], list[FileStat]] = {}
    if wanted:
        stdin = "".join(f"{a} {b}\n" for a, b in wanted).encode()
        out = git.run("diff-tree", "--stdin", "-r", "-z", "--no-renames", "--numstat", stdin=stdin)
        found = _parse_numstats(out)
    return [found.get((a, b), []) for a, b in pairs]


def _parse_numstats(out: bytes) -> dict[tuple[str, str], list[FileStat]]:
    result: dict[tuple[str, str], list[FileStat]] = {}
    current: list[FileStat] | None = None
    position = 0
    while position < len(out):
        header = _PAIR_HEADER.match(out, position)
        if header is not None:
            current = result.setdefault((header[1].decode(), header[2].decode()), [])
            position = header.end()
            continue
        end = out.find(b"\0", position)
        end = len(out) if end == -1 else end
        record = out[position:end]
        position = end + 1
        added, _, rest = record.partition(b"\t")
        removed, _, path = rest.partition(b"\t")
        if current is not None and path:
            current.append(
                FileStat(
                    os.fsdecode(path),
                    int(added) if added.isdigit() else -1,
                    int(removed) if removed.isdigit() else -1,
                )
            )
    return result
