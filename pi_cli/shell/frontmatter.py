"""A small YAML-frontmatter reader for SKILL.md files and prompt templates.

Only the subset these files use: top-level ``key: value`` pairs, quoted strings, and ``|`` /
``>`` block scalars. Nested mappings (``metadata:``) are kept as raw text. No YAML library is
needed, so loading skills costs nothing at start-up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_KEY = re.compile(r"^([A-Za-z0-9_-]+)\s*:\s*(.*)$")


class FrontmatterError(ValueError):
    """The frontmatter block is present but cannot be read."""


@dataclass
class Document:
    """A markdown file split into frontmatter fields and body."""

    fields: dict[str, str] = field(default_factory=dict)
    body: str = ""
    has_frontmatter: bool = False


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        inner = value[1:-1]
        return inner.replace('\\"', '"') if value[0] == '"' else inner.replace("''", "'")
    # A trailing comment after an unquoted scalar.
    return re.sub(r"\s+#.*$", "", value)


def parse_document(text: str) -> Document:
    """Split ``text`` into frontmatter fields and body.

    Raises:
        FrontmatterError: the opening ``---`` has no closing ``---``, or a line is not ``key: value``.
    """
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or lines[0].strip() != "---":
        return Document(body=text)
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise FrontmatterError("frontmatter has no closing '---' line") from None
    fields: dict[str, str] = {}
    block = lines[1:end]
    index = 0
    while index < len(block):
        line = block[index]
        index += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = _KEY.match(line)
        if match is None or line[0].isspace():
            raise FrontmatterError(f"cannot read frontmatter line {index + 1}: {line.strip()!r}")
        key, value = match.group(1), match.group(2).strip()
        continued: list[str] = []
        while index < len(block) and (not block[index].strip() or block[index][0].isspace()):
            continued.append(block[index])
            index += 1
        if value[:1] in ("|", ">"):
            parts = [c.strip() for c in continued]
            fields[key] = (
                ("\n" if value[0] == "|" else " ")
                .join(p for p in parts if p or value[0] == "|")
                .strip()
            )
        elif continued and not value:
            fields[key] = "\n".join(continued)  # a nested mapping or list: kept raw
        else:
            # A plain scalar may wrap onto indented lines.
            fields[key] = _unquote(" ".join([value, *(c.strip() for c in continued if c.strip())]))
    body = "\n".join(lines[end + 1 :])
    return Document(fields=fields, body=body.strip("\n"), has_frontmatter=True)
