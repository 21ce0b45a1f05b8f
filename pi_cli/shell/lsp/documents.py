"""What a server has of a file: the text at a version, and the diagnostics it published."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 4 * 1024 * 1024
"""Larger files are not opened in a server (generated code, data)."""


@dataclass
class Document:
    """A file open in the server: the text it has, at which version."""

    path: Path
    uri: str
    language_id: str
    version: int
    text: str
    stamp: tuple[int, int]
    sent_seq: int
    """The server's publish counter when this version was sent."""


@dataclass
class Published:
    """The last diagnostics published for one file."""

    items: list[dict[str, Any]]
    version: int | None
    seq: int
    at: float


def file_stamp(path: Path) -> tuple[int, int] | None:
    """(mtime_ns, size) of a regular file, or None."""
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size) if os.path.isfile(path) else None


def read_text(path: Path) -> tuple[str, tuple[int, int]] | None:
    """A file's text (invalid UTF-8 replaced) and stamp; None if missing, huge or not a file."""
    stamp = file_stamp(path)
    if stamp is None or stamp[1] > MAX_FILE_BYTES:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data.decode("utf-8", "replace").removeprefix("\ufeff"), stamp
