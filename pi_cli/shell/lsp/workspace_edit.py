"""A server's ``WorkspaceEdit`` checked and applied to file texts (for the rename tool).

Only text edits are taken: an edit that creates, renames or deletes files, names a file that
is not a local ``file:`` URI, points past a file's end, or overlaps another edit of the same
file is refused as a whole, before anything is written. The texts are the files' bytes as they
are on disk (strict UTF-8, a byte order mark kept), so what is written is exactly the old file
with the server's edits in it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from pi_cli.shell.lsp.positions import path_of, to_column

MAX_FILES = 500
MAX_EDITS = 20_000
MAX_FILE_BYTES = 8 * 1024 * 1024
BOM = "\ufeff"


class EditRefused(Exception):
    """The edit cannot be applied as a whole (the message says why, for the model)."""


@dataclass(frozen=True)
class TextEdit:
    """One replacement: LSP positions (0-based line, offset in the negotiated encoding)."""

    start: tuple[int, int]
    end: tuple[int, int]
    new_text: str


def text_edits(edit: Any) -> dict[Path, list[TextEdit]]:
    """The text edits of a ``WorkspaceEdit`` per local file (raises :class:`EditRefused`)."""
    if not isinstance(edit, Mapping):
        raise EditRefused("the server sent no edit")
    found: dict[Path, list[TextEdit]] = {}
    changes = edit.get("documentChanges")
    if isinstance(changes, list):  # preferred over "changes" when both are there (LSP 3.17)
        for change in changes:
            if not isinstance(change, Mapping):
                raise EditRefused("the server sent a malformed document change")
            kind = change.get("kind")
            if kind is not None:
                raise EditRefused(
                    f"the server's edit would {kind} a file ({change.get('uri') or change.get('oldUri')}); "
                    "pi applies text edits only"
                )
            document = change.get("textDocument")
            uri = document.get("uri") if isinstance(document, Mapping) else None
            _add(found, uri, change.get("edits"))
    elif isinstance(edit.get("changes"), Mapping):
        for uri, edits in edit["changes"].items():
            _add(found, uri, edits)
    if len(found) > MAX_FILES:
        raise EditRefused(f"the edit changes {len(found)} files (at most {MAX_FILES})")
    if sum(map(len, found.values())) > MAX_EDITS:
        raise EditRefused(f"the edit has more than {MAX_EDITS} changes")
    return {path: edits for path, edits in found.items() if edits}


def _add(found: dict[Path, list[TextEdit]], uri: Any, edits: Any) -> None:
    path = path_of(uri) if isinstance(uri, str) else None
    if path is None or not path.is_absolute():
        raise EditRefused(f"the edit names {str(uri)[:200]!r}, not a local file")
    if not isinstance(edits, list):
        raise EditRefused(f"the edit of {path} has no list of changes")
    path = Path(os.path.normpath(path))  # one spelling per file ("a//b", "a/../a/b")
    target = found.setdefault(path, [])
    for item in edits:
        if not isinstance(item, Mapping) or not isinstance(item.get("newText"), str):
            raise EditRefused(f"a malformed change of {path}")
        span = item.get("range")
        start = span.get("start") if isinstance(span, Mapping) else None
        end = span.get("end") if isinstance(span, Mapping) else None
        if not isinstance(start, Mapping) or not isinstance(end, Mapping):
            raise EditRefused(f"a change of {path} without a range")
        target.append(TextEdit(_position(start), _position(end), item["newText"]))


def _position(value: Mapping[str, Any]) -> tuple[int, int]:
    line, character = value.get("line"), value.get("character")
    if _count(line) and _count(character):
        return line, character
    raise EditRefused(f"a change at an invalid position {dict(value)!r}"[:300])


def _count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def decode(data: bytes, path: Path) -> tuple[str, str]:
    """(byte order mark or "", text) of a file's bytes (raises :class:`EditRefused`)."""
    if len(data) > MAX_FILE_BYTES:
        raise EditRefused(f"{path} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise EditRefused(f"{path} is not UTF-8 text") from None
    return (BOM, text[1:]) if text.startswith(BOM) else ("", text)


def apply(text: str, edits: list[TextEdit], encoding: str, path: Path) -> str:
    """``text`` with ``edits`` made (raises :class:`EditRefused` on overlap or a bad range)."""
    lines = text.split("\n")
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)

    def offset(position: tuple[int, int]) -> int:
        line, character = position
        if line >= len(lines):
            if line == len(lines) and character == 0:
                return len(text)  # the position just past the last line
            raise EditRefused(f"a change of {path} is past its end (line {line + 1})")
        content = lines[line].removesuffix("\r")
        return starts[line] + to_column(content, character, encoding)

    spans = sorted(
        ((offset(e.start), offset(e.end), e.new_text) for e in edits), key=lambda s: s[:2]
    )
    parts: list[str] = []
    done = 0
    for begin, end, new_text in spans:
        if end < begin or begin < done:
            raise EditRefused(f"the server's changes of {path} overlap")
        parts += [text[done:begin], new_text]
        done = end
    parts.append(text[done:])
    return "".join(parts)
