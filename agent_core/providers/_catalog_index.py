"""The cost map's index: one model's entry without parsing the whole 3.4 MB map.

Parsing the map costs ~30 ms and ~15 MiB, scanning it (a regex over 3.4 MB) ~20 ms a start. The
map is indexed once per installed version (the file's size and mtime, :mod:`.catalog` names the
file): a file beside pi's other caches holds each entry as its own JSON text, with a header
(marshal) giving where each one lies, the providers the map names and each provider's chat
models. A lookup reads the header and decodes the one entry. The header holds the keys as one
text and their spans as packed integers, and the chat lists as marshal bytes decoded when asked
for: decoding ~4,900 keys and their spans as a dict and tuples cost ~1.5 ms of every start,
finding one key in the text costs ~0.05 ms; a provider's models are
its entries alone (the list of models a session can switch to: ~1 ms for OpenAI's hundred,
not ~45 ms and ~10 MiB for the map's 3,500). Without a usable index (an unwritable cache) the
whole map is read, as before.
"""

from __future__ import annotations

import json
import marshal
import os
import struct
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Final

INDEX_VERSION: Final = 4
_SPAN = struct.Struct("<II")  # an entry's start and end in the entries' block


def write_index(path: Path, table: dict[str, dict[str, Any]]) -> None:
    """The index file: 8 bytes giving the header's size, the header, the entries' JSON."""
    keys: list[str] = []
    spans = bytearray()
    chat: dict[str, list[str]] = {}
    chunks: list[bytes] = []
    size = 0
    for key, entry in table.items():
        if "\n" in key:
            continue  # the keys' separator: no model is named so
        chunk = json.dumps(entry, separators=(",", ":")).encode()
        keys.append(key)
        spans += _SPAN.pack(size, size + len(chunk))
        chunks.append(chunk)
        size += len(chunk)
        owner = chat_owner(key, entry)
        if owner is not None:
            chat.setdefault(owner, []).append(key)
    header = {
        "version": INDEX_VERSION,
        "keys": "\n" + "\n".join(keys) + "\n",
        "spans": bytes(spans),
        "providers": sorted(providers_of(table)),
        "chat": marshal.dumps(chat),
    }
    raw = marshal.dumps(header)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    partial.write_bytes(len(raw).to_bytes(8, "big") + raw + b"".join(chunks))
    os.replace(partial, path)  # whole or not at all, also with two pi starting at once


STALE_AFTER_S: Final = 7 * 24 * 3600
"""An index of another map (an older litellm) unwritten this long is removed (see :func:`prune`)."""


def prune(kept: Path, now: float) -> None:
    """Remove the indexes of other maps (and partial writes) not written for
    :data:`STALE_AFTER_S`, beside ``kept``, the index just written.

    Each litellm upgrade names a new index (~2.7 MB); the old ones would otherwise stay forever.
    An index another install still uses is at worst rebuilt once (it is only written when
    missing, so one in use is spared for a week after each write).
    """
    for pattern in ("model-catalog-*.index", "model-catalog-*.tmp"):
        for other in kept.parent.glob(pattern):
            try:
                if other != kept and now - other.stat().st_mtime > STALE_AFTER_S:
                    other.unlink()
            except OSError:
                continue  # gone already (another pi pruning), or not ours to remove


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
    keys, spans = header.get("keys"), header.get("spans")
    if not (
        isinstance(keys, str) and isinstance(spans, bytes) and isinstance(header.get("chat"), bytes)
    ):
        return None
    if len(spans) != (keys.count("\n") - 1) * _SPAN.size or not keys.startswith("\n"):
        return None  # not the header write_index made
    return {**header, "file": path, "base": 8 + size}


def _span(index: dict[str, Any], key: str) -> tuple[int, int] | None:
    """Where ``key``'s entry lies in the entries' block, ``None`` if the map has none."""
    keys: str = index["keys"]
    at = keys.find(f"\n{key}\n") if "\n" not in key else -1
    if at < 0:
        return None
    start, end = _SPAN.unpack_from(index["spans"], keys.count("\n", 0, at) * _SPAN.size)
    return start, end


def chat_keys(index: dict[str, Any]) -> dict[str, list[str]]:
    """Each provider's chat models (decoded the first time they are asked for)."""
    chat = index.get("chat_keys")
    if chat is None:
        try:
            chat = marshal.loads(index["chat"])
        except (EOFError, TypeError) as exc:
            raise ValueError(f"a damaged index: {exc}") from None
        if not isinstance(chat, dict):
            raise ValueError("a damaged index: no chat lists")
        index["chat_keys"] = chat
    return chat


def indexed_entry(index: dict[str, Any], key: str) -> dict[str, Any] | None:
    """The entry of ``key``, read and decoded alone (``None`` if the map has none)."""
    span = _span(index, key)
    if span is None:
        return None
    start, end = span
    with open(index["file"], "rb") as file:
        file.seek(index["base"] + start)
        value = json.loads(file.read(end - start))
    return value if isinstance(value, dict) else None


def indexed_entries(index: dict[str, Any], keys: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The entries of ``keys`` (each in the index), read through one open file (``ValueError``
    if one is not an object or not in the index: the file is not what the header says)."""
    with open(index["file"], "rb") as file:
        for key in keys:
            span = _span(index, key)
            if span is None:
                raise ValueError(f"not in the index: {key}")
            file.seek(index["base"] + span[0])
            value = json.loads(file.read(span[1] - span[0]))
            if not isinstance(value, dict):
                raise ValueError(f"not an entry: {key}")
            yield value


def chat_owner(key: str, entry: Mapping[str, Any]) -> str | None:
    """The provider whose chat model ``key`` is (``None``: another mode, or no provider known,
    so not a model anyone can pick)."""
    if entry.get("mode", "chat") != "chat":
        return None
    owner = str(entry.get("litellm_provider") or "").split("-")[0] or key.partition("/")[0]
    return owner if owner and owner != key else None


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
