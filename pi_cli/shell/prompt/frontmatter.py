"""Front matter of SKILL.md files, prompt templates and Claude Code commands.

The block between a first line ``---`` and the next ``---`` line is YAML (the subset of
:mod:`pi_cli.shell.prompt._yaml_subset`); the rest is the body. Values keep their YAML types
(``disable-model-invocation: true`` is ``True``); :func:`text_field` reads one as text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pi_cli.shell.prompt._yaml_subset import YamlError, parse_yaml_mapping


class FrontmatterError(ValueError):
    """The front matter block is present but is not readable YAML (``line``: in the file)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass
class Document:
    """A markdown file split into front matter fields and body."""

    fields: dict[str, Any] = field(default_factory=dict)
    body: str = ""
    has_frontmatter: bool = False


def parse_document(text: str) -> Document:
    """Split ``text`` into front matter fields and body.

    Raises:
        FrontmatterError: the opening ``---`` has no closing ``---`` line, or the block is not
            valid YAML (the message says "at line N", N counted in the file).
    """
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if not lines or lines[0].rstrip() != "---":
        return Document(body=text)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if end is None:
        raise FrontmatterError("front matter has no closing '---' line", 1)
    try:
        fields = parse_yaml_mapping("\n".join(lines[1:end]), first_line=2)
    except YamlError as exc:
        raise FrontmatterError(str(exc), exc.line) from None
    except RecursionError:
        raise FrontmatterError("front matter is nested too deeply", 2) from None
    body = "\n".join(lines[end + 1 :])
    return Document(fields=fields, body=body.strip("\n"), has_frontmatter=True)


def text_field(fields: dict[str, Any], key: str) -> str | None:
    """Field ``key`` as text: strings as they are, numbers and booleans spelled out, else None."""
    value = fields.get(key)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return str(value)
    return None
