"""Built-in tools for the agent: read, write, edit, bash, bash_output, bash_kill, monitor,
monitor_stop, grep, find, ls, web_fetch, todo_write, task, exit_plan_mode and ask_user.

Each tool is a factory over a working directory returning an object that satisfies
``agent_core.Tool``: besides its schema it declares its own presentation (``summary`` for the
system prompt's tool list, a ``guideline`` line, a one-line ``title`` for a call) and the files a
call reads or writes (``file_effects``). The tools that need the shell (a sub-agent runner, plan
approval, the todo display) get it as :class:`~tools.services.ToolServices`. This package imports
only agent_core, msgspec (the arguments are :class:`~agent_core.ToolArguments` records) and the
standard library (ripgrep is run as a subprocess), except web_fetch's two modules, which import
httpx and trafilatura when a fetch is made.

The process tools (``bash``, ``bash_output``, ``bash_kill``, ``monitor``, ``monitor_stop``) share one :class:`Sandbox`: the
session's sandbox and background shells. :func:`create_tools` makes an unsandboxed one (still
contained) when none is given; the shell passes the one it built from the settings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from agent_core import Tool
from tools._output import OutputBuffer
from tools._paths import display_path, resolve_path
from tools._rg import find_rg
from tools._truncate import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, format_size, truncate_head
from tools.ask_user import AskUserTool, create_ask_user_tool
from tools.bash import BashTool, create_bash_tool
from tools.bash.kill import BashKillTool, create_bash_kill_tool
from tools.bash.monitor import MonitorStopTool, MonitorTool, create_monitor_tools
from tools.bash.output import BashOutputTool, create_bash_output_tool
from tools.edit import EditDetails, EditTool, create_edit_tool
from tools.exit_plan_mode import ExitPlanModeTool, create_exit_plan_mode_tool
from tools.find import FindTool, create_find_tool
from tools.grep import GrepTool, create_grep_tool
from tools.ls import LsTool, create_ls_tool
from tools.read import ReadTool, create_read_tool
from tools.sandbox import Sandbox, SandboxStatus, SandboxUnavailable, ShellInfo
from tools.services import ToolServices
from tools.task import TaskTool, create_task_tool
from tools.todo import TodoTool, create_todo_tool
from tools.web.fetch import WebFetchTool, create_web_fetch_tool
from tools.web.fetch import parse_entry as parse_web_fetch_entry
from tools.write import WriteTool, create_write_tool

_LAZY = {  # web_search loads when it is built or named: it is off unless configured
    "WebSearchTool": ("tools.web.search", "WebSearchTool"),
    "create_web_search_tool": ("tools.web.search", "create_web_search_tool"),
    "SearchBackend": ("tools.web.search", "SearchBackend"),
    "SEARCH_DEFAULT_URLS": ("tools.web.search", "DEFAULT_URLS"),
    "SEARCH_KEY_ENVS": ("tools.web.search", "KEY_ENVS"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'tools' has no attribute {name!r}")
    import importlib

    module, attribute = _LAZY[name]
    return getattr(importlib.import_module(module), attribute)


def _web_search_tool(cwd: str | Path, config: Any) -> Tool:
    from tools.web.search import create_web_search_tool

    return create_web_search_tool(cwd, config)


ToolFactory = Callable[..., Tool]
"""``factory(cwd)``; the process tools also take ``sandbox=`` (and bash ``env=``)."""
ServiceFactory = Callable[[str | Path, ToolServices], Tool]

_WITH_SERVICES: dict[str, ServiceFactory] = {
    "web_fetch": lambda cwd, s: create_web_fetch_tool(cwd, s.web_fetch),
    "web_search": lambda cwd, s: _web_search_tool(cwd, s.web_search),
    "todo_write": lambda cwd, s: create_todo_tool(cwd, s.todo_changed),
    "task": lambda cwd, s: create_task_tool(cwd, s.agent_profiles, s.task_runner),
    "exit_plan_mode": lambda cwd, s: create_exit_plan_mode_tool(cwd, s.plan_approver),
    "ask_user": lambda cwd, s: create_ask_user_tool(cwd, s.user_asker),
}

TOOL_FACTORIES: dict[str, ToolFactory] = {
    "read": create_read_tool,
    "bash": create_bash_tool,
    "bash_output": create_bash_output_tool,
    "bash_kill": create_bash_kill_tool,
    "monitor": lambda cwd, sandbox=None, env=None: create_monitor_tools(cwd, sandbox, env)[0],
    "monitor_stop": lambda cwd, sandbox=None: create_monitor_tools(cwd, sandbox)[1],
    "edit": create_edit_tool,
    "write": create_write_tool,
    "grep": create_grep_tool,
    "find": create_find_tool,
    "ls": create_ls_tool,
    "web_fetch": create_web_fetch_tool,
    "web_search": lambda cwd, config=None: _web_search_tool(cwd, config),
    "todo_write": create_todo_tool,
    "task": create_task_tool,
    "exit_plan_mode": create_exit_plan_mode_tool,
    "ask_user": create_ask_user_tool,
}
"""Every tool by name; the service tools made this way work standalone (no shell)."""

PROCESS_TOOL_NAMES: frozenset[str] = frozenset(
    {"bash", "bash_output", "bash_kill", "monitor", "monitor_stop"}
)
"""The tools that share the session's :class:`Sandbox`."""

DEFAULT_TOOL_NAMES: list[str] = [
    *("read", "bash", "bash_output", "bash_kill", "edit", "write"),
    *("web_fetch", "todo_write", "task", "exit_plan_mode", "ask_user", "monitor", "monitor_stop"),
]
"""On by default, as in Claude Code (which has WebFetch, TodoWrite, Task, ExitPlanMode and
AskUserQuestion, and Monitor)."""

AGENT_TOOL_NAMES = frozenset(
    {"todo_write", "task", "exit_plan_mode", "ask_user", "monitor", "monitor_stop"}
    | {"schedule_create", "schedule_list", "schedule_delete"}  # the shell's: /loop's tools
)
"""Tools about the conversation itself: a sub-agent never gets them (no nested sub-agents, no
schedule that fires into the parent's session; a monitor's lines go to the main conversation)."""


def create_tools(
    names: list[str],
    cwd: str | Path,
    env: Mapping[str, str] | None = None,
    services: ToolServices | None = None,
    *,
    sandbox: Sandbox | None = None,
) -> list[Tool]:
    """Instantiate the named tools over ``cwd``, in the order given.

    ``env`` is the environment the bash tool's commands run with (default: pi's own);
    ``services`` is what the shell gives todo_write, task, exit_plan_mode and web_fetch; the
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
    given = services or ToolServices()
    tools: list[Tool] = []
    monitors: tuple[MonitorTool, MonitorStopTool] | None = None
    for name in names:
        if name == "bash":
            tools.append(create_bash_tool(cwd, sandbox, env))
        elif name in ("monitor", "monitor_stop"):
            monitors = monitors or create_monitor_tools(cwd, sandbox, env)
            tools.append(monitors[0] if name == "monitor" else monitors[1])
        elif name in PROCESS_TOOL_NAMES:
            tools.append(TOOL_FACTORIES[name](cwd, sandbox=sandbox))
        elif name in _WITH_SERVICES:
            tools.append(_WITH_SERVICES[name](cwd, given))
        else:
            tools.append(TOOL_FACTORIES[name](cwd))
    return tools


__all__ = [
    "AGENT_TOOL_NAMES",
    "AskUserTool",
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "DEFAULT_TOOL_NAMES",
    "PROCESS_TOOL_NAMES",
    "TOOL_FACTORIES",
    "BashKillTool",
    "BashOutputTool",
    "BashTool",
    "EditDetails",
    "EditTool",
    "ExitPlanModeTool",
    "FindTool",
    "GrepTool",
    "LsTool",
    "MonitorStopTool",
    "MonitorTool",
    "ReadTool",
    "Sandbox",
    "SandboxStatus",
    "SandboxUnavailable",
    "TaskTool",
    "TodoTool",
    "ToolFactory",
    "ToolServices",
    "WebFetchTool",
    "WebSearchTool",
    "SEARCH_DEFAULT_URLS",
    "SEARCH_KEY_ENVS",
    "SearchBackend",
    "OutputBuffer",
    "ShellInfo",
    "display_path",
    "find_rg",
    "format_size",
    "parse_web_fetch_entry",
    "resolve_path",
    "truncate_head",
    "WriteTool",
    "create_ask_user_tool",
    "create_bash_kill_tool",
    "create_bash_output_tool",
    "create_bash_tool",
    "create_edit_tool",
    "create_exit_plan_mode_tool",
    "create_find_tool",
    "create_grep_tool",
    "create_ls_tool",
    "create_read_tool",
    "create_task_tool",
    "create_todo_tool",
    "create_tools",
    "create_web_fetch_tool",
    "create_web_search_tool",
    "create_write_tool",
]
