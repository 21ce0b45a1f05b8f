"""Positions: LSP counts columns in UTF-16 code units (or the negotiated UTF-8 bytes or
UTF-32); pi shows and takes 1-based lines and character columns."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urlparse

Encoding = str  # "utf-8", "utf-16" or "utf-32"


def _units(char: str, encoding: Encoding) -> int:
    if encoding == "utf-8":
        return len(char.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return 1
    return 2 if ord(char) > 0xFFFF else 1


def to_column(line: str, character: int, encoding: Encoding) -> int:
    """The 0-based character index of LSP offset ``character`` in ``line``."""
    if encoding == "utf-32":
        return max(0, min(character, len(line)))
    units = 0
    for index, char in enumerate(line):
        if units >= character:
            return index
        units += _units(char, encoding)
    return len(line)


def from_column(line: str, column: int, encoding: Encoding) -> int:
    """The LSP offset of 0-based character index ``column`` in ``line``."""
    column = max(0, min(column, len(line)))
    if encoding == "utf-32":
        return column
    return sum(_units(char, encoding) for char in line[:column])


def number(value: object) -> int:
    """A non-negative int from a server's JSON (anything else: 0)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def path_of(uri: str) -> Path | None:
    """The local path of a ``file:`` URI (None for other schemes)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


def uri_of(path: Path) -> str:
    """The ``file:`` URI of an absolute path."""
    return path.as_uri()
