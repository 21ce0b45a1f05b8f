"""Tool and command names for MCP: ``mcp__<server>__<tool>``, valid for every provider.

Providers accept tool names matching ``^[a-zA-Z0-9_-]{1,64}$``: anything else becomes ``_``,
an over-long name keeps its start and gets a short hash of the full name, and a name already
taken (two tools that sanitise alike, a clash with a built-in) gets ``_2``, ``_3``...
"""

from __future__ import annotations

import hashlib
import re

MAX_NAME = 64
_BAD = re.compile(r"[^a-zA-Z0-9_-]")
VALID = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def sanitise(text: str) -> str:
    """``text`` with every character outside ``[a-zA-Z0-9_-]`` replaced by ``_``."""
    return _BAD.sub("_", text) or "_"


def _fit(name: str, full: str) -> str:
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(full.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"


def tool_name(server: str, tool: str, taken: set[str]) -> str:
    """The model-facing name of ``server``'s ``tool``, unique in ``taken`` (which it joins)."""
    full = f"mcp__{server}__{tool}"
    base = _fit(f"mcp__{sanitise(server)}__{sanitise(tool)}", full)
    name, counter = base, 1
    while name in taken:
        counter += 1
        suffix = f"_{counter}"
        name = base[: MAX_NAME - len(suffix)] + suffix
    taken.add(name)
    return name


def prefix(server: str) -> str:
    """The name prefix of every tool of ``server``."""
    return f"mcp__{sanitise(server)}__"
