"""Reading raw (unvalidated, maybe partial) call arguments for titles and file effects.

Titles are drawn while arguments still stream in, and for calls the model got wrong, so
nothing here raises: a missing or wrong-typed argument reads as ``None``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from agent_core import FileEffect, first_line
from agent_core.tool import TITLE_LIMIT


def str_arg(args: Mapping[str, Any], key: str) -> str | None:
    """``args[key]`` when it is a string with something in it, else None."""
    value = args.get(key) if isinstance(args, Mapping) else None
    return value if isinstance(value, str) and value.strip() else None


def int_arg(args: Mapping[str, Any], key: str) -> int | None:
    """``args[key]`` as a positive int (``7`` or ``"7"``), else None."""
    value = args.get(key) if isinstance(args, Mapping) else None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return value
    return None


def with_suffix(head: str, suffix: str) -> str:
    """``head`` clipped to one line so that ``head + suffix`` fits in a title."""
    return first_line(head, max(TITLE_LIMIT - len(suffix), 1)) + suffix


def path_effect(
    args: Mapping[str, Any], access: Literal["read", "write"], default: str | None = None
) -> list[FileEffect]:
    """The ``path`` argument as one effect; ``default`` stands in when it is absent or empty.

    A wrong-typed path (a number, a list) yields no effect: the call will fail validation.
    """
    value = args.get("path") if isinstance(args, Mapping) else None
    if (value is None or value == "") and default is not None:
        return [FileEffect(default, access)]
    if isinstance(value, str) and value.strip():
        return [FileEffect(value, access)]
    return []


def search_title(head: str, args: Mapping[str, Any]) -> str:
    """``head in path`` (path default ``.``), with ``(glob)`` when a glob narrows the search."""
    where = first_line(str_arg(args, "path") or ".", 80)
    glob = str_arg(args, "glob")
    tail = f" in {where}" + (f" ({first_line(glob, 60)})" if glob else "")
    return (with_suffix(head, tail) if head else tail.lstrip()).strip()
