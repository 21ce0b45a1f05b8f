"""What an approval shows: the exact command, or the diff an edit or write would make."""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MAX_LINES = 400
MAX_READ = 2 * 1024 * 1024


def preview(tool: str, args: Mapping[str, Any], cwd: Path) -> str:
    """A text showing what the call would do (never raises)."""
    try:
        if tool == "bash":
            return str(args.get("command", ""))
        if tool in ("edit", "write") and isinstance(args.get("path"), str):
            return _file_change(tool, args, cwd)
        return json.dumps(dict(args), ensure_ascii=False, indent=2, default=str)
    except Exception as exc:  # noqa: BLE001 - a preview must never stop the question
        return f"(no preview: {type(exc).__name__}: {exc})"


def _file_change(tool: str, args: Mapping[str, Any], cwd: Path) -> str:
    path = Path(os.path.expanduser(str(args["path"])))
    path = path if path.is_absolute() else cwd / path
    shown = str(args["path"])
    old = _read(path)
    if tool == "write":
        new = str(args.get("content", ""))
        if old is None:
            lines = new.splitlines()
            head = "\n".join(lines[:MAX_LINES])
            more = f"\n… {len(lines) - MAX_LINES} more lines" if len(lines) > MAX_LINES else ""
            return f"new file {shown} ({len(lines)} lines)\n{head}{more}"
    else:
        if old is None:
            return f"(cannot read {shown}: the edit will fail)"
        from tools.edit import EditItem, apply_edits

        try:
            items = [EditItem.model_validate(e) for e in args.get("edits") or []]
            new, _ = apply_edits(old.replace("\r\n", "\n"), items, multiple=len(items) > 1)
        except Exception as exc:  # noqa: BLE001 - ToolError, ValidationError: the edit would fail
            return f"(the edit would fail: {exc})"
        old = old.replace("\r\n", "\n")
    diff = list(
        difflib.unified_diff(
            (old or "").splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{shown}",
            tofile=f"b/{shown}",
        )
    )
    if len(diff) > MAX_LINES:
        diff = [*diff[:MAX_LINES], f"… {len(diff) - MAX_LINES} more diff lines\n"]
    return "".join(diff) or "(no change)"


def _read(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > MAX_READ:
            return None
        return path.read_bytes().decode("utf-8", "replace").removeprefix("\ufeff")
    except OSError:
        return None
