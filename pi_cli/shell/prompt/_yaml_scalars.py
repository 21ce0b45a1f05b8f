"""Scalars and flow collections of the front matter YAML subset (see :mod:`pi_cli.shell.prompt._yaml_subset`)."""

import math
import re
from collections.abc import Callable
from typing import Any

_INT = re.compile(r"^[-+]?[0-9]+$")
_HEX, _OCT = re.compile(r"^0x[0-9a-fA-F]+$"), re.compile(r"^0o[0-7]+$")
_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v"}
_ESCAPES |= {"f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\"}
_ESCAPES |= {"N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}
_FLOW_PLAIN = re.compile(r"[^,\[\]{}\n]*?(?=\s*(?:[,\]}\n]|:\s|:$|$))")


class YamlError(ValueError):
    """The text is not YAML this reader accepts; ``line`` is 1-based in the file."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(f"{message} at line {line}")
        self.reason = message
        self.line = line


def resolve_plain(text: str) -> Any:
    """A plain scalar under the YAML 1.2 core schema."""
    if text in ("", "~", "null", "Null", "NULL"):
        return None
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if _INT.match(text):
        return int(text)
    if _HEX.match(text) or _OCT.match(text):
        return int(text, 0)
    lowered = text.lower()
    if lowered in (".inf", "+.inf", "-.inf", ".nan") and text in (
        lowered,
        text.upper(),
        text.title(),
    ):
        return math.nan if lowered == ".nan" else -math.inf if text[0] == "-" else math.inf
    if _FLOAT.match(text) and any(c.isdigit() for c in text):
        return float(text)
    return text


def strip_comment(text: str) -> str:
    """``text`` without a trailing `` # comment`` (a ``#`` inside a word stays)."""
    match = re.search(r"(^|\s)#", text)
    return (text[: match.start()] if match else text).rstrip()


def quoted_end(text: str, start: int) -> int | None:
    """Index of the quote closing the scalar that opens at ``text[start]``."""
    quote = text[start]
    position = start + 1
    while position < len(text):
        char = text[position]
        if quote == '"' and char == "\\":
            position += 2
            continue
        if char == quote:
            if quote == "'" and text[position + 1 : position + 2] == "'":
                position += 2
                continue
            return position
        position += 1
    return None


def unquote(raw: str, fail: Callable[[str], YamlError]) -> str:
    quote, inner = raw[0], raw[1:-1]
    lines = inner.split("\n")
    if len(lines) > 1:
        lines = [lines[0].rstrip(" \t")] + [ln.strip(" \t") for ln in lines[1:]]
        inner = fold(lines)
    if quote == "'":
        return inner.replace("''", "'")
    out: list[str] = []
    position = 0
    while position < len(inner):
        char = inner[position]
        if char != "\\":
            out.append(char)
            position += 1
            continue
        code = inner[position + 1 : position + 2]
        if code in _HEX_ESCAPES:
            digits = inner[position + 2 : position + 2 + _HEX_ESCAPES[code]]
            if len(digits) != _HEX_ESCAPES[code] or not re.fullmatch(r"[0-9a-fA-F]+", digits):
                raise fail(f"Invalid escape sequence \\{code}{digits}")
            out.append(chr(int(digits, 16)))
            position += 2 + len(digits)
        elif code in _ESCAPES:
            out.append(_ESCAPES[code])
            position += 2
        else:
            raise fail(f"Invalid escape sequence \\{code}")
    return "".join(out)


def fold(parts: list[str]) -> str:
    """Flow folding: a single line break is a space, each blank line a newline."""
    out = parts[0]
    blank = 0
    for part in parts[1:]:
        if not part:
            blank += 1
            continue
        out += ("\n" * blank) if blank else " "
        out += part
        blank = 0
    return out


def fold_block(lines: list[str]) -> str:
    """``>`` folding: lines join with spaces; blank and more-indented lines keep their breaks."""
    out = ""
    previous: str | None = None
    for line in lines:
        if previous is None:
            out = line
        elif not line:
            out += "\n"
        elif previous and not previous.startswith((" ", "\t")) and not line.startswith((" ", "\t")):
            out += " " + line
        else:
            out += ("\n" if previous else "") + line
        previous = line
    return out


class Incomplete(Exception):  # control flow: the flow collection goes on
    pass


class Flow:
    """A flow collection (``[a, {b: c}]``) over one (possibly joined) text."""

    def __init__(self, text: str, fail: Callable[[str], YamlError]) -> None:
        self.text, self.fail, self.position = text, fail, 0

    def parse(self) -> tuple[Any, int]:
        return self.node(), self.position

    def skip(self) -> None:
        while self.position < len(self.text):
            char = self.text[self.position]
            if char == "#" and (self.position == 0 or self.text[self.position - 1].isspace()):
                newline = self.text.find("\n", self.position)
                self.position = len(self.text) if newline < 0 else newline
            elif char.isspace():
                self.position += 1
            else:
                return
        raise Incomplete

    def node(self) -> Any:
        self.skip()
        char = self.text[self.position]
        if char in "[{":
            return self.collection(char)
        if char in "'\"":
            end = quoted_end(self.text, self.position)
            if end is None:
                raise Incomplete
            raw = self.text[self.position : end + 1]
            self.position = end + 1
            return unquote(raw, self.fail)
        match = _FLOW_PLAIN.match(self.text, self.position)
        token = match.group(0) if match else ""
        self.position += len(token)
        return resolve_plain(token.strip())

    def collection(self, opener: str) -> Any:
        closer = "]" if opener == "[" else "}"
        self.position += 1
        items: list[Any] = []
        mapping: dict[str, Any] = {}
        while True:
            self.skip()
            if self.text[self.position] == closer:
                self.position += 1
                return items if opener == "[" else mapping
            key = self.node()
            self.skip()
            value: Any = None
            pair = self.text[self.position] == ":"
            if pair:
                self.position += 1
                self.skip()
                value = None if self.text[self.position] in ",]}" else self.node()
            if opener == "[":
                items.append({str(key): value} if pair else key)
            else:
                mapping[str(key)] = value
            self.skip()
            char = self.text[self.position]
            if char == ",":
                self.position += 1
            elif char != closer:
                raise self.fail(f'Unexpected flow token "{char}"')
