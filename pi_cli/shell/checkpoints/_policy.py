"""Which tool calls may change files, so a snapshot must come before them.

One function, :func:`may_change_files`; bash is judged by the read-only classifier the shell
passes in (the permissions' one), every other tool by its declared file effects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from agent_core import Tool

READ_ONLY_TOOLS = frozenset({"read", "grep", "find", "ls"})
"""Built-in tools whose calls only read (their file effects say so too)."""


def may_change_files(
    tool: Tool | None,
    name: str,
    args: Mapping[str, Any],
    read_only_bash: Callable[[str], bool] | None = None,
) -> bool:
    """Whether a call of ``tool`` (called ``name``) with ``args`` is not proven read-only.

    Bash may do anything unless ``read_only_bash`` proves its command read-only; a call whose tool declares a ``write`` file effect writes; a tool
    declaring only reads, or a built-in reader, does not. Anything else (an MCP or custom tool
    that says nothing about its effects) is not proven read-only, so it counts as changing.
    """
    if name == "bash":
        command = args.get("command")
        return not (isinstance(command, str) and read_only_bash and read_only_bash(command))
    if tool is None:
        return True
    try:
        effects = list(tool.file_effects(args))
    except Exception:  # noqa: BLE001 - a broken tool counts as one that may write
        return True
    if any(effect.access == "write" for effect in effects):
        return True
    return not (effects or name in READ_ONLY_TOOLS)
