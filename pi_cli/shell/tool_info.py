"""What front ends and the shell ask of a tool call: its title and the files it touches.

The tools word these themselves (``Tool.title`` / ``Tool.file_effects``); this module only
finds the tool by name and keeps a broken tool from breaking a renderer.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from agent_core import FileEffect, Tool

log = logging.getLogger("pi_cli")


def _find(tools: Sequence[Tool], name: str) -> Tool | None:
    return next((tool for tool in tools if tool.name == name), None)


def describe_call(tools: Sequence[Tool], tool_name: str, args: object) -> str:
    """The one-line title of a call (``$ ls -la``, ``src/app.py:10-50``); "" for unknown tools."""
    tool = _find(tools, tool_name)
    if tool is None:
        return ""
    try:
        return tool.title(args if isinstance(args, dict) else {})
    except Exception:  # a broken title never breaks rendering
        log.debug("title of %s failed", tool_name, exc_info=True)
        return ""


def call_effects(tools: Sequence[Tool], tool_name: str, args: object) -> list[FileEffect]:
    """The files a call reads or writes, as its tool says ([] for unknown tools)."""
    tool = _find(tools, tool_name)
    if tool is None:
        return []
    try:
        return list(tool.file_effects(args if isinstance(args, dict) else {}))
    except Exception:
        log.debug("file effects of %s failed", tool_name, exc_info=True)
        return []
