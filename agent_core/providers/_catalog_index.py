"""The cost map's index: one model's entry without parsing the whole 3.4 MB map.

Parsing the map costs ~30 ms and ~15 MiB, scanning it (a regex over 3.4 MB) ~20 ms a start. The
map is indexed once per installed version (the file's size and mtime, :mod:`.catalog` names the
file): a file beside pi's other caches holds each entry as its own JSON text, with a header
(marshal) giving where each one lies and the providers the map names. A lookup reads the header
(~0.5 ms) and decodes the one entry. Without a usable index (an unwritable cache) the whole map
is read, as before.
"""

from __future__ import annotations

import json
import marshal
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

INDEX_VERSION: Final = 2


def write_index(path: Path, table: dict[str, dict[str, Any]]) -> None:
    """The index file: 8 bytes giving the header's size, the header, the entries' JSON."""
    offsets: dict[str, tuple[int, int]] = {}
    chunks: list[bytes] = []
    size = 0
    for key, entry in table.items():
        chunk = json.dumps(entry, separators=(",", ":")).encode()
        offsets[key] = (size, size + len(chunk))
        chunks.append(chunk)
        size += len(chunk)
    header = {
        "version": INDEX_VERSION,
        "offsets": offsets,
        "providers": sorted(providers_of(table)),
    }
    raw = marshal.dumps(header)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_bytes(len(raw).to_bytes(8, "big") + raw + b"".join(chunks))
    os.replace(partial, path)  # whole or not at all, also with two pi starting at once


def read_header(path: Path) -> dict[str, Any] | None:
    """The index's header (with where its file and entries are), ``None`` if unusable."""
    try:
        with open(path, "rb") as file:
            size = int.from_bytes(file.read(8), "big")
            header = marshal.loads(file.read(size))
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not isinstance(header, dict) or header.get("version") != INDEX_VERSION:
        return None
    return {**header, "file": path, "base": 8 + size}


def indexed_entry(index: dict[str, Any], key: str) -> dict[str, Any] | None:
    """The entry of ``key``, read and decoded alone (``None`` if the map has none)."""
    span = index["offsets"].get(key)
    if span is None:
        return None
    start, end = span
    with open(index["file"], "rb") as file:
        file.seek(index["base"] + start)
        value = json.loads(file.read(end - start))
    return value if isinstance(value, dict) else None


def providers_of(table: Mapping[str, Any]) -> set[str]:
    """Every provider the map names (``litellm_provider`` values and ``provider/`` keys)."""
    names: set[str] = set()
    for key, entry in table.items():
        if not isinstance(entry, dict) or key == "sample_spec":
            continue
        owner = str(entry.get("litellm_provider") or "").split("-")[0]
        if owner:
            names.add(owner)
        if "/" in key:
            names.add(key.partition("/")[0])
    return names
