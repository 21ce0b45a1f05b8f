"""Built-in tools for the agent: read, write, edit, bash, bash_output, bash_kill, grep, find, ls.

Each tool is a factory over a working directory returning an object that satisfies
``agent_core.Tool``: besides its schema it declares its own presentation (``summary`` for the
system prompt's tool list, a ``guideline`` line, a one-line ``title`` for a call) and the files a
call reads or writes (``file_effects``). This package imports only agent_core, pydantic and the
standard library (ripgrep is run as a subprocess).

The process tools (``bash``, ``bash_output``, ``bash_kill``) share one :class:`Sandbox`: the
session's sandbox and background shells. :func:`create_tools` makes an unsandboxed one (still
contained) when none is given; the shell passes the one it built from the settings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agent_core import Tool
from tools.bash import BashTool, create_bash_tool
from tools.bash_kill import BashKillTool, create_bash_kill_tool
from tools.bash_output import BashOutputTool, create_bash_output_tool
from tools.edit import EditDetails, EditTool, create_edit_tool
from tools.find import FindTool, create_find_tool
from tools.grep import GrepTool, create_grep_tool
from tools.ls import LsTool, create_ls_tool
from tools.read import ReadTool, create_read_tool
from tools.sandbox import Sandbox, SandboxStatus, SandboxUnavailable
from tools.write import WriteTool, create_write_tool

ToolFactory = Callable[..., Tool]
"""``factory(cwd)``; the process tools also take ``sandbox=`` (and bash ``env=``)."""

TOOL_FACTORIES: dict[str, ToolFactory] = {
    "read": create_read_tool,
    "bash": create_bash_tool,
    "bash_output": create_bash_output_tool,
    "bash_kill": create_bash_kill_tool,
    "edit": create_edit_tool,
    "write": create_write_tool,
    "grep": create_grep_tool,
    "find": create_find_tool,
    "ls": create_ls_tool,
}

PROCESS_TOOL_NAMES: frozenset[str] = frozenset({"bash", "bash_output", "bash_kill"})
"""The tools that share the session's :class:`Sandbox`."""

DEFAULT_TOOL_NAMES: list[str] = ["read", "bash", "bash_output", "bash_kill", "edit", "write"]


def create_tools(
    names: list[str],
    cwd: str | Path,
    env: Mapping[str, str] | None = None,
    *,
    sandbox: Sandbox | None = None,
) -> list[Tool]:
    """Instantiate the named tools over ``cwd``, in the order given.

    ``env`` is the environment the bash tool's commands run with (default: pi's own); the
    process tools share ``sandbox`` (default: a new unsandboxed one for this set).

    Raises:
        ValueError: for an unknown name (the message lists the valid ones).
    """
    unknown = [name for name in names if name not in TOOL_FACTORIES]
    if unknown:
        raise ValueError(
            f"Unknown tool(s): {', '.join(unknown)}. Valid tools: {', '.join(TOOL_FACTORIES)}"
        )
    if sandbox is None and PROCESS_TOOL_NAMES.intersection(names):
        sandbox = Sandbox(cwd, mode="off")
    tools: list[Tool] = []
    for name in names:
        if name == "bash":
            tools.append(create_bash_tool(cwd, sandbox, env))
            continue
        extra: dict[str, Any] = {"sandbox": sandbox} if name in PROCESS_TOOL_NAMES else {}
        tools.append(TOOL_FACTORIES[name](cwd, **extra))
    return tools


__all__ = [
    "DEFAULT_TOOL_NAMES",
    "PROCESS_TOOL_NAMES",
    "TOOL_FACTORIES",
    "BashKillTool",
    "BashOutputTool",
    "BashTool",
    "EditDetails",
    "EditTool",
    "FindTool",
    "GrepTool",
    "LsTool",
    "ReadTool",
    "Sandbox",
    "SandboxStatus",
    "SandboxUnavailable",
    "ToolFactory",
    "WriteTool",
    "create_bash_kill_tool",
    "create_bash_output_tool",
    "create_bash_tool",
    "create_edit_tool",
    "create_find_tool",
    "create_grep_tool",
    "create_ls_tool",
    "create_read_tool",
    "create_tools",
    "create_write_tool",
]
