"""Claude Code's names for pi's tools and their arguments (hooks, permission rules).

Hook scripts written for Claude Code check ``tool_name == "Bash"`` and read
``tool_input.file_path``; pi sends them exactly that (plus pi's own ``path`` so pi-style hooks
keep working) and maps an ``updatedInput`` back to pi's argument names.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CLAUDE_NAMES: dict[str, str] = {
    "bash": "Bash",
    "read": "Read",
    "write": "Write",
    "edit": "Edit",
    "grep": "Grep",
    "find": "Glob",
    "ls": "LS",
}
"""pi tool -> Claude Code tool (``edit`` with several edits is ``MultiEdit``)."""

PI_NAMES: dict[str, str] = {claude.lower(): pi for pi, claude in CLAUDE_NAMES.items()}
PI_NAMES["multiedit"] = "edit"


def claude_tool_name(tool: str, args: Mapping[str, Any] | None = None) -> str:
    """Claude Code's name for a call of pi's ``tool`` (unknown tools keep their name)."""
    if tool == "edit" and isinstance(args, Mapping):
        edits = args.get("edits")
        if isinstance(edits, list) and len(edits) > 1:
            return "MultiEdit"
    return CLAUDE_NAMES.get(tool, tool)


def pi_tool_name(name: str) -> str:
    """pi's name for a tool named either way (``Bash`` -> ``bash``; others unchanged)."""
    return PI_NAMES.get(name.lower(), name) if name.lower() in PI_NAMES else name


def names_of(tool: str, args: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    """Both spellings of a call's tool, for matchers (``("bash", "Bash")``)."""
    claude = claude_tool_name(tool, args)
    return (tool, claude) if claude != tool else (tool,)


def _absolute(path: Any, cwd: Path) -> Any:
    if not isinstance(path, str) or not path:
        return path
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(path)))


def to_claude_input(tool: str, args: Mapping[str, Any], cwd: Path) -> dict[str, Any]:
    """``tool_input`` as Claude Code's hooks expect it (absolute ``file_path``, ``old_string``...)."""
    data = dict(args)
    if tool in ("read", "write", "edit", "ls", "grep", "find") and "path" in data:
        absolute = _absolute(data["path"], cwd)
        key = "file_path" if tool in ("read", "write", "edit") else "path"
        data[key] = absolute
    if tool == "bash":
        if isinstance(data.get("timeout"), int | float):
            data["timeout"] = int(data["timeout"] * 1000)  # Claude Code: milliseconds
        if data.pop("sandbox", None) is False:
            data["dangerouslyDisableSandbox"] = True
    elif tool == "edit":
        edits = [e for e in data.pop("edits", None) or [] if isinstance(e, Mapping)]
        converted = [
            {
                "old_string": e.get("old_text", ""),
                "new_string": e.get("new_text", ""),
                "replace_all": False,
            }
            for e in edits
        ]
        if len(converted) == 1:
            data.update(converted[0])
        else:
            data["edits"] = converted
    elif tool == "grep":
        for pi_key, claude_key in (
            ("ignore_case", "-i"),
            ("context", "-C"),
            ("limit", "head_limit"),
        ):
            if pi_key in data:
                data[claude_key] = data[pi_key]
        data.setdefault("output_mode", "content")
    return data


def from_claude_input(
    tool: str, updated: Mapping[str, Any], original: Mapping[str, Any]
) -> dict[str, Any]:
    """An ``updatedInput`` (either spelling) as pi arguments, starting from ``original``."""
    data = dict(original)
    given = dict(updated)
    if tool in ("read", "write", "edit", "ls", "grep", "find"):
        for key in ("file_path", "path"):
            if isinstance(given.get(key), str):
                data["path"] = given[key]
                break
    if tool == "bash":
        return _bash_input(data, given, original)
    if tool == "edit":
        if isinstance(given.get("edits"), list):
            data["edits"] = [_pi_edit(e) for e in given["edits"] if isinstance(e, Mapping)]
        elif "old_string" in given or "new_string" in given:
            data["edits"] = [_pi_edit(given)]
        return data
    claude_keys = {"file_path", "-i", "-C", "head_limit", "output_mode"}
    data.update({k: v for k, v in given.items() if k not in claude_keys and k != "path"})
    if tool == "grep":
        for claude_key, pi_key in (
            ("-i", "ignore_case"),
            ("-C", "context"),
            ("head_limit", "limit"),
        ):
            if claude_key in given:
                data[pi_key] = given[claude_key]
    return data


def _bash_input(
    data: dict[str, Any], given: dict[str, Any], original: Mapping[str, Any]
) -> dict[str, Any]:
    """Claude Code's Bash input: a timeout in milliseconds, its sandbox switch."""
    if isinstance(given.get("command"), str):
        data["command"] = given["command"]
    timeout = given.get("timeout")
    if isinstance(timeout, int | float) and timeout != original.get("timeout"):
        data["timeout"] = timeout / 1000
    if given.get("dangerouslyDisableSandbox") is True or given.get("sandbox") is False:
        data["sandbox"] = False
    return data


def _pi_edit(edit: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "old_text": edit.get("old_string", edit.get("old_text", "")),
        "new_text": edit.get("new_string", edit.get("new_text", "")),
    }
