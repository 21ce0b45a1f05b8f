"""Which tool calls may change files, so a snapshot must come before them.

One function, :func:`may_change_files`, so a better judge (a read-only bash classifier) can
replace it in one place: assign another function of the same shape to
:data:`CHANGE_PREDICATE` (``Checkpoints`` reads it at each call).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agent_core import Tool

ChangePredicate = Callable[[Tool | None, str, Mapping[str, Any]], bool]
READ_ONLY_TOOLS = frozenset({"read", "grep", "find", "ls"})
"""Built-in tools whose calls only read (their file effects say so too)."""


def may_change_files(tool: Tool | None, name: str, args: Mapping[str, Any]) -> bool:
    """Whether a call of ``tool`` (called ``name``) with ``args`` is not proven read-only.

    Bash may do anything; a call whose tool declares a ``write`` file effect writes; a tool
    declaring only reads, or a built-in reader, does not. Anything else (an MCP or custom tool
    that says nothing about its effects) is not proven read-only, so it counts as changing.
    """
    if name == "bash":
        return True
    if tool is None:
        return True
    try:
        effects = list(tool.file_effects(args))
    except Exception:  # noqa: BLE001 - a broken tool counts as one that may write
        return True
    if any(effect.access == "write" for effect in effects):
        return True
    return not (effects or name in READ_ONLY_TOOLS)


CHANGE_PREDICATE: list[ChangePredicate] = [may_change_files]
"""The predicate in use (a one-element list so it can be swapped without a global)."""
