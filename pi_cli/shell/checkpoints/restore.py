"""Restoring the workspace's files from a snapshot tree, through pi's one safe file primitive.

Every write and removal goes through :mod:`tools.safe_files`: the workspace is opened once, and
each file is reached below it one component at a time without following any symlink (``..``
refused), so a symlink planted or swapped while the restore runs (a sandboxed background loop
flipping ``src -> .git``) cannot redirect it: that path is reported as not restored and nothing
outside the workspace, nor inside ``.git``, is touched. Contents come from the shadow
repository (``ls-tree`` for modes, ``cat-file --batch`` for bytes, in bounded batches); git's own
``checkout-index`` is not used, because it resolves each path again itself.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pi_cli.shell.checkpoints.git import GitError, ShadowGit
from pi_cli.shell.checkpoints.snapshot import name_status
from tools.safe_files import NotARegularFile, PathChanged, open_root, pin_under

BATCH_BYTES = 64 * 1024 * 1024
"""Most blob bytes held in memory at once."""
_SYMLINK, _GITLINK, _EXECUTABLE = 0o120000, 0o160000, 0o100755


@dataclass
class Restored:
    """What a restore did to the workspace."""

    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Entry:
    path: str
    mode: int
    sha: str
    size: int


def restore_tree(
    git: ShadowGit, current: str, target: str, keep: frozenset[str] = frozenset()
) -> Restored:
    """Make the workspace's snapshotted files those of ``target`` (``current``: a snapshot
    just taken). Files created since are deleted; files in ``keep`` are left as they are;
    ignored and oversized files (in neither tree) are never touched."""
    report = Restored()
    changes = [(s, p) for s, p in name_status(git, current, target) if p not in keep]
    if not changes:
        return report
    try:
        with open_root(git.workspace) as root:
            for status, path in changes:
                if status == "D":
                    _delete(root, git.workspace, path, report)
            writes = [path for status, path in changes if status != "D"]
            if writes:
                _write_all(git, root, target, writes, report)
    except OSError as exc:  # the workspace itself is gone or is a symlink now
        report.failed.append(f"{git.workspace}: {exc.strerror or exc}")
    return report


def _write_all(git: ShadowGit, root: int, target: str, paths: list[str], report: Restored) -> None:
    try:
        entries = _entries(git, target, set(paths))
        for batch in _batches(entries):
            blobs = _blobs(git, [e.sha for e in batch if e.mode != _GITLINK])
            for entry in batch:
                _write(root, git.workspace, entry, blobs.get(entry.sha, b""), report)
    except GitError as exc:
        report.failed.append(str(exc))


def _entries(git: ShadowGit, tree: str, wanted: set[str]) -> list[_Entry]:
    """The tree's entries for ``wanted`` paths (mode, blob, size), from ``ls-tree -r -l``."""
    out = git.run("ls-tree", "-r", "-z", "-l", "--full-tree", tree)
    found: list[_Entry] = []
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        path = os.fsdecode(raw_path)
        if path not in wanted:
            continue
        mode, _kind, sha, size = meta.split()
        found.append(_Entry(path, int(mode, 8), sha.decode(), int(size) if size.isdigit() else 0))
    return found


def _batches(entries: list[_Entry]) -> Iterator[list[_Entry]]:
    batch: list[_Entry] = []
    held = 0
    for entry in entries:
        if batch and held + entry.size > BATCH_BYTES:
            yield batch
            batch, held = [], 0
        batch.append(entry)
        held += entry.size
    if batch:
        yield batch


def _blobs(git: ShadowGit, shas: list[str]) -> dict[str, bytes]:
    """The bytes of each blob (``cat-file --batch``: ``<sha> blob <size>\\n<bytes>\\n``)."""
    if not shas:
        return {}
    unique = list(dict.fromkeys(shas))
    out = git.run("cat-file", "--batch", stdin=("\n".join(unique) + "\n").encode())
    blobs: dict[str, bytes] = {}
    position = 0
    for sha in unique:
        end = out.index(b"\n", position)
        header = out[position:end].split()
        if len(header) != 3 or header[1] != b"blob":
            raise GitError(f"git cat-file: {sha} is not in the checkpoint repository")
        size = int(header[2])
        blobs[sha] = out[end + 1 : end + 1 + size]
        position = end + 1 + size + 1
    return blobs


def _write(root: int, workspace: Path, entry: _Entry, data: bytes, report: Restored) -> None:
    try:
        with pin_under(root, workspace, entry.path, create_dirs=True) as place:
            if entry.mode == _GITLINK:  # a nested repository: its directory only
                with contextlib.suppress(FileExistsError):
                    os.mkdir(place.name, 0o777, dir_fd=place.dir_fd)
            elif entry.mode == _SYMLINK:
                info = place.lstat()
                if info is not None and stat.S_ISDIR(info.st_mode):
                    raise IsADirectoryError(21, "a directory is in the way", entry.path)
                place.symlink(os.fsdecode(data))
            else:
                executable = entry.mode == _EXECUTABLE
                place.write_atomic(data, over_symlink=True, mode=0o777 if executable else 0o666)
    except PathChanged as exc:
        report.failed.append(f"{entry.path}: not restored: {exc}")
        return
    except (OSError, NotARegularFile) as exc:
        report.failed.append(f"{entry.path}: {exc.strerror or exc}")
        return
    report.written.append(entry.path)


def _delete(root: int, workspace: Path, path: str, report: Restored) -> None:
    try:
        with pin_under(root, workspace, path) as place:
            info = place.lstat()
            if info is not None and not stat.S_ISDIR(info.st_mode):
                place.unlink()
                report.deleted.append(path)
    except FileNotFoundError:
        return
    except PathChanged as exc:
        report.failed.append(f"{path}: not removed: {exc}")
        return
    except OSError as exc:
        report.failed.append(f"{path}: {exc.strerror or exc}")
        return
    parent = os.path.dirname(path)
    while parent:  # directories left empty go too (never the workspace itself)
        try:
            with pin_under(root, workspace, parent) as place:
                os.rmdir(place.name, dir_fd=place.dir_fd)
        except OSError:
            break
        parent = os.path.dirname(parent)
