"""A copy pi installed (a plugin, a package), recorded file by file and checked on load.

:func:`file_records` keeps every file's size, modification time and SHA-256; :func:`verify`
lists the copy again and compares sizes and modification times with the record, hashing a file
only when they differ: a file added, removed or changed is named (one line).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` atomically (a temp file in the same folder, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _walk(root: str) -> dict[str, os.stat_result]:
    """Every regular file (and link) under ``root`` by relative path, with its ``lstat``."""
    found: dict[str, os.stat_result] = {}
    prefix = len(root) + 1
    for folder, dirs, files in os.walk(root):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            path = os.path.join(folder, name)
            try:
                found[path[prefix:]] = os.lstat(path)
            except OSError:
                continue
    return found


def sha256_of(path: str) -> str:
    """The file's SHA-256 (a link: of its target's path text)."""
    if os.path.islink(path):
        return "link:" + hashlib.sha256(os.readlink(path).encode()).hexdigest()
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_records(root: Path) -> dict[str, list[Any]]:
    """``{relative path: [size, mtime_ns, sha256]}`` of every file under ``root``."""
    base = str(root)
    return {
        rel: [info.st_size, info.st_mtime_ns, sha256_of(os.path.join(base, rel))]
        for rel, info in sorted(_walk(base).items())
    }


def verify(root: Path, records: dict[str, Any]) -> str | None:
    """``None`` when ``root`` holds exactly the recorded files, else what differs (one line)."""
    base = str(root)
    if not os.path.isdir(base):
        return f"its folder {root} is missing"
    now = _walk(base)
    added = sorted(set(now) - set(records))
    removed = sorted(set(records) - set(now))
    if added:
        return f"{added[0]} was added" + (f" (and {len(added) - 1} more)" if len(added) > 1 else "")
    if removed:
        return f"{removed[0]} was removed"
    for rel, info in now.items():
        record = records[rel]
        if not isinstance(record, list) or len(record) != 3:
            return f"its record of {rel} is damaged"
        if info.st_size == record[0] and info.st_mtime_ns == record[1]:
            continue
        try:
            same = info.st_size == record[0] and sha256_of(os.path.join(base, rel)) == record[2]
        except OSError:
            same = False
        if not same:
            return f"{rel} was changed"
    return None


class CopyTooLarge(ValueError):
    """A copy would exceed its file or byte limit."""


def copy_tree(source: Path, dest: Path, max_files: int, max_bytes: int) -> list[str]:
    """Copy ``source``'s files into ``dest`` (no ``.git``, no link out of it, at most
    ``max_files`` files and ``max_bytes`` bytes: ValueError beyond); what was left out."""
    real = source.resolve()
    left_out: list[str] = []
    count = total = 0
    for folder, dirs, files in os.walk(real):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        rel_folder = Path(folder).relative_to(real)
        (dest / rel_folder).mkdir(parents=True, exist_ok=True)
        for name in sorted(files) + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            path = Path(folder, name)
            target = path.resolve()
            if path.is_symlink() and (real not in target.parents or not target.is_file()):
                left_out.append(f"{rel_folder / name} (a link out of the folder or to a folder)")
                dirs[:] = [d for d in dirs if d != name]
                continue
            count += 1
            total += target.stat().st_size
            if count > max_files or total > max_bytes:
                raise CopyTooLarge(
                    f"it is larger than pi installs ({max_files} files, "
                    f"{max_bytes // (1024 * 1024)} MiB)"
                )
            shutil.copyfile(target, dest / rel_folder / name)
            os.chmod(dest / rel_folder / name, 0o755 if os.access(target, os.X_OK) else 0o644)
    return left_out


@contextmanager
def exclusive(lock: Path) -> Iterator[None]:
    """Hold ``lock`` (a file, made if missing) exclusively: one pi at a time changes a store
    (two ``pi install`` racing would each write the record they read, and lose the other's)."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    handle = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # closing releases the lock
