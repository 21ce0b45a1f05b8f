"""Example pi Python hook: block ``rm -rf`` of anything outside the working directory.

Install: copy to ``~/.pi/hooks/`` (every project) or ``.pi/hooks/`` (this project).
pi calls ``tool_call(event)`` before each tool call; returning ``{"block": True, "reason": ...}``
stops the call and the reason is what the model reads. If this function raised, pi would
block the call too (fail safe) and show the error.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any


def _recursive_force(flags: list[str]) -> bool:
    letters = "".join(f.lstrip("-") for f in flags if f.startswith("-") and not f.startswith("--"))
    long = {f for f in flags if f.startswith("--")}
    recursive = "r" in letters or "R" in letters or "--recursive" in long
    force = "f" in letters or "--force" in long
    return recursive and force


def dangerous_targets(command: str, cwd: Path) -> list[str]:
    """Targets of ``rm -rf`` in ``command`` that lie outside ``cwd`` (or are ``cwd`` itself)."""
    try:
        words = shlex.split(command.replace(";", " ; ").replace("&&", " && ").replace("||", " || "))
    except ValueError:
        return [command] if "rm -rf" in command or "rm -fr" in command else []
    found: list[str] = []
    index = 0
    while index < len(words):
        if os.path.basename(words[index]) != "rm":
            index += 1
            continue
        index += 1
        args: list[str] = []
        while index < len(words) and words[index] not in (";", "&&", "||", "|"):
            args.append(words[index])
            index += 1
        flags = [a for a in args if a.startswith("-")]
        if not _recursive_force(flags):
            continue
        root = cwd.resolve()
        for target in (a for a in args if not a.startswith("-")):
            expanded = os.path.expandvars(os.path.expanduser(target))
            path = Path(expanded) if os.path.isabs(expanded) else root / expanded
            resolved = Path(os.path.normpath(path))
            if resolved == root or root not in resolved.parents:
                found.append(target)
    return found


def tool_call(event: Any) -> dict[str, Any] | None:
    """Block ``bash`` calls that would ``rm -rf`` outside the project."""
    if event.tool_name != "bash":
        return None
    targets = dangerous_targets(str(event.args.get("command", "")), Path(event.cwd))
    if targets:
        return {
            "block": True,
            "reason": f"Blocked by permission gate: rm -rf outside {event.cwd}: {', '.join(targets)}",
        }
    return None
