"""What an approval shows: the exact command, or the diff an edit or write would make."""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pi_cli.shell.permissions._web import host_of

MAX_LINES = 400
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
MAX_READ = 2 * 1024 * 1024


def preview(tool: str, args: Mapping[str, Any], cwd: Path) -> str:
    """A text showing what the call would do (never raises)."""
    try:
        if tool == "bash":
            return str(args.get("command", ""))
        if tool in ("edit", "write") and isinstance(args.get("path"), str):
            return _file_change(tool, args, cwd)
        if tool == "web_fetch" and isinstance(args.get("url"), str):
            return _web_request(args)
        return json.dumps(dict(args), ensure_ascii=False, indent=2, default=str)
    except Exception as exc:  # noqa: BLE001 - a preview must never stop the question
        return f"(no preview: {type(exc).__name__}: {exc})"


def _web_request(args: Mapping[str, Any]) -> str:
    """``GET <url>`` and the host, as the user reads them (not the call's JSON).

    Characters a terminal would act on (controls, bidi overrides) are shown percent-encoded,
    the way a browser's address bar shows them.
    """
    url = _visible(str(args["url"]).strip())
    lines = [f"GET {url}"]
    host = host_of(args["url"])
    if host is not None:
        lines.append(f"host: {_visible(host)}")
    offset = args.get("offset")
    if isinstance(offset, int) and not isinstance(offset, bool) and offset > 1:
        lines.append(f"(the converted page from line {offset})")
    return "\n".join(lines)


def _visible(text: str) -> str:
    return "".join(
        "".join(f"%{byte:02X}" for byte in ch.encode("utf-8", "surrogatepass"))
        if _hidden(ch)
        else ch
        for ch in text
    )


def _hidden(ch: str) -> bool:
    code = ord(ch)
    return code < 0x20 or 0x7F <= code <= 0x9F or ch in _BIDI or ch.isspace()


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
