"""Built-in tools for the agent: read, write, edit, bash, grep, find, ls.

Each tool is a factory over a working directory returning an object that satisfies
``agent_core.Tool``: besides its schema it declares its own presentation (``summary`` for the
system prompt's tool list, a ``guideline`` line, a one-line ``title`` for a call) and the files a
call reads or writes (``file_effects``). This package imports only agent_core, pydantic and the
standard library (ripgrep is run as a subprocess).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from agent_core import Tool
from tools.bash import BashTool, create_bash_tool
from tools.edit import EditDetails, EditTool, create_edit_tool
from tools.find import FindTool, create_find_tool
from tools.grep import GrepTool, create_grep_tool
from tools.ls import LsTool, create_ls_tool
from tools.read import ReadTool, create_read_tool
from tools.write import WriteTool, create_write_tool

ToolFactory = Callable[[str | Path], Tool]

TOOL_FACTORIES: dict[str, ToolFactory] = {
    "read": create_read_tool,
    "bash": create_bash_tool,
    "edit": create_edit_tool,
    "write": create_write_tool,
    "grep": create_grep_tool,
    "find": create_find_tool,
    "ls": create_ls_tool,
}

DEFAULT_TOOL_NAMES: list[str] = ["read", "bash", "edit", "write"]


def create_tools(
    names: list[str], cwd: str | Path, env: Mapping[str, str] | None = None
) -> list[Tool]:
    """Instantiate the named tools over ``cwd``, in the order given.

    ``env`` is the environment the bash tool's commands run with (default: pi's own).

    Raises:
        ValueError: for an unknown name (the message lists the valid ones).
    """
    unknown = [name for name in names if name not in TOOL_FACTORIES]
    if unknown:
        raise ValueError(
            f"Unknown tool(s): {', '.join(unknown)}. Valid tools: {', '.join(TOOL_FACTORIES)}"
        )
    return [
        create_bash_tool(cwd, env=env) if name == "bash" else TOOL_FACTORIES[name](cwd)
        for name in names
    ]


__all__ = [
    "DEFAULT_TOOL_NAMES",
    "TOOL_FACTORIES",
    "BashTool",
    "EditDetails",
    "EditTool",
    "FindTool",
    "GrepTool",
    "LsTool",
    "ReadTool",
    "ToolFactory",
    "WriteTool",
    "create_bash_tool",
    "create_edit_tool",
    "create_find_tool",
    "create_grep_tool",
    "create_ls_tool",
    "create_read_tool",
    "create_tools",
    "create_write_tool",
]
