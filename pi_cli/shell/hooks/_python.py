"""Python hook modules from ``$PI_HOME/hooks/`` and (in a trusted folder) ``.pi/hooks/``.

See :mod:`pi_cli.shell.hooks` for the functions a module may define.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pi_cli.shell.paths import pi_home, project_dir

if TYPE_CHECKING:
    from pi_cli.shell.context import ShellContext

HOOK_FUNCTIONS = ("input", "tool_call", "tool_result", "turn_end", "agent_end", "session_start")


@dataclass
class InputEvent:
    """User input before slash commands and templates are expanded."""

    text: str
    cwd: Path
    shell: ShellContext | None = None


@dataclass
class ToolCallEvent:
    """A validated tool call about to run."""

    tool_name: str
    tool_call_id: str
    args: dict[str, Any]
    cwd: Path
    shell: ShellContext | None = None


@dataclass
class ToolResultEvent:
    """A finished tool call."""

    tool_name: str
    tool_call_id: str
    args: dict[str, Any]
    content: str  # the result's text, for convenience
    result: Any  # the agent_core ToolResult
    is_error: bool
    cwd: Path
    shell: ShellContext | None = None


@dataclass
class SessionStartEvent:
    """The shell started (or switched to) a session."""

    session_id: str
    session_file: str | None
    cwd: Path
    shell: ShellContext | None = None


@dataclass
class PythonHook:
    """One loaded module."""

    path: Path
    module: ModuleType
    functions: dict[str, Any] = field(default_factory=dict)


def load_python_hooks(
    cwd: Path, include_project: bool = True
) -> tuple[list[PythonHook], list[str]]:
    """Import every ``*.py`` in the global then the project hook directory (sorted by name).

    ``include_project`` is False in an untrusted folder: its hook files are not even read.
    """
    hooks: list[PythonHook] = []
    problems: list[str] = []
    directories = [pi_home() / "hooks"]
    if include_project:
        directories.append(project_dir(cwd) / "hooks")
    for directory in directories:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.py")):
            name = f"pi_hook_{abs(hash(str(path.resolve())))}_{path.stem}"
            try:
                spec = importlib.util.spec_from_file_location(name, path)
                if spec is None or spec.loader is None:
                    raise ImportError("not a Python module")
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module
                spec.loader.exec_module(module)
            except Exception as exc:  # noqa: BLE001 - a broken hook file must not stop pi
                sys.modules.pop(name, None)
                problems.append(f"Hook {path} failed to load: {type(exc).__name__}: {exc}")
                continue
            functions = {
                fn: getattr(module, fn)
                for fn in HOOK_FUNCTIONS
                if callable(getattr(module, fn, None))
            }
            if functions:
                hooks.append(PythonHook(path, module, functions))
    return hooks, problems


async def call_hook(function: Any, event: Any) -> Any:
    """Call a hook function, awaiting it if it is async."""
    result = function(event)
    if inspect.isawaitable(result):
        result = await result
    return result
