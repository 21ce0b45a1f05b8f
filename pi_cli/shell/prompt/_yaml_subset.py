"""A YAML subset for front matter: what SKILL.md files, prompt templates and commands use.

Block mappings and sequences, plain / single- / double-quoted scalars (multi-line too), ``|``
and ``>`` block scalars with chomping and indentation indicators, flow ``[...]`` / ``{...}``
collections, comments, and the YAML 1.2 core schema (``true``, ``null``, ``12``, ``1.5``...).
What it does not read (aliases, complex keys, documents) is an error, never a silent guess.
Errors carry the line number of the file, as pi's ``yaml`` package reports them
("... at line N"), so a broken skill is skipped with a message saying where.

No YAML library: PyYAML costs ~20 ms to import on every start-up, and speaks YAML 1.1
(``yes`` is true there), not the 1.2 that pi's loader uses.
"""

from __future__ import annotations

import re
from typing import Any

from pi_cli.shell.prompt._yaml_scalars import (
    Flow,
    Incomplete,
    YamlError,
    fold,
    fold_block,
    quoted_end,
    resolve_plain,
    strip_comment,
    unquote,
)

__all__ = ["YamlError", "parse_yaml_mapping"]


class Reader:
    """Parses the lines of one front matter block; ``first_line`` is its line number in the file."""

    def __init__(self, text: str, first_line: int = 1) -> None:
        # A final line break ends the last line; it does not start an empty one.
        self.lines = (text[:-1] if text.endswith("\n") else text).split("\n")
        self.first = first_line

    def fail(self, message: str, index: int) -> YamlError:
        return YamlError(message, self.first + index)

    def indent(self, index: int) -> int:
        line = self.lines[index]
        stripped = line.lstrip(" ")
        if stripped.startswith("\t") and stripped.strip():
            raise self.fail("Tabs are not allowed as indentation", index)
        return len(line) - len(stripped)

    def skip_blank(self, index: int) -> int:
        while index < len(self.lines):
            content = self.lines[index].strip()
            if content and not content.startswith("#"):
                break
            index += 1
        return index

    # ------------------------------------------------------------------ documents

    def document(self) -> dict[str, Any]:
        """The whole block as a mapping (an empty block is an empty mapping)."""
        index = self.skip_blank(0)
        if index >= len(self.lines):
            return {}
        if self.indent(index) != 0:
            raise self.fail("Front matter must start at column 1", index)
        if self.lines[index].startswith("-") and self.lines[index][1:2] in ("", " "):
            raise self.fail("Front matter must be key: value pairs, not a list", index)
        value, index = self.mapping(index, 0)
        index = self.skip_blank(index)
        if index < len(self.lines):
            raise self.fail("All mapping items must start at the same column", index)
        return value

    def block(self, index: int, parent: int) -> tuple[Any, int]:
        """The nested block value after ``key:`` (a mapping, a sequence or null)."""
        start = self.skip_blank(index)
        if start >= len(self.lines):
            return None, start
        indent = self.indent(start)
        content = self.lines[start][indent:]
        is_item = content.startswith("-") and content[1:2] in ("", " ")
        if indent > parent:
            return self.sequence(start, indent) if is_item else self.mapping(start, indent)
        if indent == parent and is_item:
            return self.sequence(start, indent)
        return None, index

    def mapping(self, index: int, indent: int) -> tuple[dict[str, Any], int]:
        result: dict[str, Any] = {}
        while (index := self.skip_blank(index)) < len(self.lines):
            current = self.indent(index)
            if current < indent:
                break
            if current > indent:
                raise self.fail("All mapping items must start at the same column", index)
            content = self.lines[index][indent:]
            if content.startswith("-") and content[1:2] in ("", " "):
                break  # a sequence at the parent's indentation ends this mapping
            key, rest = self.split_key(content, index)
            if key in result:
                raise self.fail("Map keys must be unique", index)
            result[key], index = self.value(rest, index, indent)
        return result, index

    def sequence(self, index: int, indent: int) -> tuple[list[Any], int]:
        items: list[Any] = []
        while (index := self.skip_blank(index)) < len(self.lines):
            current = self.indent(index)
            content = self.lines[index][current:]
            if current != indent or not (content.startswith("-") and content[1:2] in ("", " ")):
                if current > indent:
                    raise self.fail("All sequence items must start at the same column", index)
                break
            rest = content[1:].lstrip(" ")
            inner = indent + len(content) - len(rest)
            if not rest or rest.startswith("#"):
                item, index = self.block(index + 1, indent)
            elif self.key_colon(rest) is not None:  # "- key: value" starts a mapping
                self.lines[index] = " " * inner + rest
                item, index = self.mapping(index, inner)
            else:
                item, index = self.value(rest, index, indent)
            items.append(item)
        return items, index

    def key_colon(self, content: str) -> int | None:
        """Where the ``:`` ending a plain or quoted key is in ``content``, if any."""
        if content[:1] in ("'", '"'):
            end = quoted_end(content, 0)
            if end is None:
                return None
            return end + 1 if content[end + 1 : end + 2] == ":" else None
        match = re.search(r":(\s|$)", strip_comment(content) + " ")
        if match is None or content[:1] in "[{":
            return None
        return match.start()

    def split_key(self, content: str, index: int) -> tuple[str, str]:
        colon = self.key_colon(content)
        if colon is None:
            if content.startswith("?"):
                raise self.fail("Complex mapping keys (?) are not supported", index)
            raise self.fail("Implicit map keys need to be followed by map values", index)
        raw = content[:colon].strip()
        key = unquote(raw, lambda m: self.fail(m, index)) if raw[:1] in ("'", '"') else raw
        return str(key), content[colon + 1 :].strip()

    # ------------------------------------------------------------------ values

    def value(self, rest: str, index: int, indent: int) -> tuple[Any, int]:
        """The value that starts as ``rest`` on line ``index`` under a key at ``indent``."""
        rest = self.properties(rest, index)
        if not rest or rest.startswith("#"):
            return self.block(index + 1, indent)
        head = rest[0]
        if head in "|>":
            return self.block_scalar(rest, index, indent)
        if head in "'\"":
            text, end_index, tail = self.multiline_quoted(index, rest)
            if strip_comment(tail).strip():
                raise self.fail("Unexpected scalar at node end", end_index)
            return text, end_index + 1
        if head in "[{":
            return self.flow_value(rest, index)
        if head in "@`":
            raise self.fail(f"Plain value cannot start with reserved character {head}", index)
        if head == "%":
            raise self.fail("Plain value cannot start with directive indicator character %", index)
        if head == "*":
            raise self.fail("Aliases (*name) are not supported", index)
        if head in "-?" and rest[1:2] in ("", " "):
            raise self.fail("Nested collections are not allowed on the same line as a key", index)
        return self.plain(rest, index, indent)

    def properties(self, rest: str, index: int) -> str:
        """Drop an anchor (``&a``) or tag (``!t``) before a value: its content is what counts."""
        while rest[:1] in ("&", "!"):
            _, _, rest = rest.partition(" ")
            rest = rest.lstrip()
        return rest

    def plain(self, rest: str, index: int, indent: int) -> tuple[Any, int]:
        first = strip_comment(rest)
        commented = first != rest.rstrip()
        parts = [first]
        end = index + 1
        while end < len(self.lines):
            line = self.lines[end]
            if not line.strip():
                end += 1
                parts.append("")
                continue
            if self.indent(end) <= indent or line.strip().startswith("#"):
                break
            if commented:
                raise self.fail("All mapping items must start at the same column", end)
            text = strip_comment(line.strip())
            commented = text != line.strip()
            parts.append(text)
            end += 1
        while parts and not parts[-1]:
            parts.pop()
        for offset, part in enumerate(parts):
            if re.search(r":(\s|$)", part):
                raise self.fail(
                    "Nested mappings are not allowed in compact mappings", index + offset
                )
        if len(parts) == 1:
            return resolve_plain(parts[0]), end
        return fold(parts), end

    def block_scalar(self, header: str, index: int, indent: int) -> tuple[str, int]:
        match = re.match(r"^([|>])([-+]?)([1-9]?)([-+]?)\s*(#.*)?$", header)
        if match is None:
            raise self.fail(
                "Block scalar header must be | or > with optional -, + and a digit", index
            )
        style, chomp = match.group(1), match.group(2) or match.group(4)
        width = int(match.group(3)) if match.group(3) else 0
        lines: list[str] = []
        end = index + 1
        content_indent = indent + width if width else 0
        while end < len(self.lines):
            line = self.lines[end]
            if line.strip():
                current = self.indent(end)
                if not content_indent:
                    content_indent = current if current > indent else 0
                if not content_indent or current < content_indent:
                    break
                lines.append(line[content_indent:])
            else:
                lines.append(line[content_indent:] if content_indent else "")
            end += 1
        body_end = len(lines)
        while body_end and not lines[body_end - 1].strip():
            body_end -= 1
        trailing = lines[body_end:]
        body = lines[:body_end]
        if style == "|":
            text = "\n".join(body)
        else:
            text = fold_block(body)
        if not body:
            text = ""
        if chomp == "-" or not body:
            return (text + "\n" * len(trailing) if chomp == "+" else text), end
        if chomp == "+":
            return text + "\n" + "\n" * len(trailing), end
        return text + "\n", end

    def multiline_quoted(self, index: int, rest: str) -> tuple[str, int, str]:
        """A quoted scalar that may continue on later lines: (value, last line, text after it)."""
        pieces = [rest]
        end = index
        while quoted_end("\n".join(pieces), 0) is None:
            end += 1
            if end >= len(self.lines):
                raise self.fail(f"Missing closing {rest[0]}quote", index)
            pieces.append(self.lines[end])
        joined = "\n".join(pieces)
        close = quoted_end(joined, 0)
        assert close is not None
        value = unquote(joined[: close + 1], lambda m: self.fail(m, index))
        return value, end, joined[close + 1 :]

    def flow_value(self, rest: str, index: int) -> tuple[Any, int]:
        text = rest
        end = index
        while True:
            try:
                value, position = Flow(text, lambda m: self.fail(m, index)).parse()
            except Incomplete:
                end += 1
                if end >= len(self.lines) or not self.lines[end].startswith(" "):
                    kind = "sequence" if rest[0] == "[" else "mapping"
                    closer = "]" if rest[0] == "[" else "}"
                    raise self.fail(
                        f"Flow {kind} in block collection must be sufficiently indented and "
                        f"end with a {closer}",
                        index,
                    ) from None
                text += "\n" + self.lines[end]
                continue
            if strip_comment(text[position:]).strip():
                raise self.fail(f'Unexpected flow token "{text[position:].strip()[0]}"', end)
            return value, end + 1


def parse_yaml_mapping(text: str, first_line: int = 1) -> dict[str, Any]:
    """Parse a front matter block (``first_line``: its first line's number in the file)."""
    return Reader(text.replace("\r\n", "\n").replace("\r", "\n"), first_line).document()
