"""The TypeScript pi's themes (``~/.pi/agent/themes/*.json``), read as a fallback layer.

A pi-ts theme names colours (``colors``) by pi-ts's roles, each a hex colour, an xterm-256
index, a name from its ``vars``, or ``""`` (the terminal's default). The roles pi also has
become pi's tokens and palette; the rest of pi's tokens come from pi's built-in theme of the
same darkness (as for a user theme). pi's own themes of the same name win.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from textual.theme import Theme

PALETTE = {
    "primary": "accent",
    "accent": "accent",
    "secondary": "borderAccent",
    "warning": "warning",
    "error": "error",
    "success": "success",
    "foreground": "text",
}
TOKENS = {
    "tool-pending-bg": "toolPendingBg",
    "tool-success-bg": "toolSuccessBg",
    "tool-error-bg": "toolErrorBg",
    "tool-title": "toolTitle",
    "tool-output": "toolOutput",
    "tool-error-text": "error",
    "tool-success-text": "success",
    "diff-add": "toolDiffAdded",
    "diff-remove": "toolDiffRemoved",
    "diff-context": "toolDiffContext",
    "thinking-text": "thinkingText",
    "border": "borderMuted",
    "border-active": "border",
    "user-message-bg": "userMessageBg",
    "user-message-text": "userMessageText",
    "notice-text": "muted",
    "hint-text": "dim",
    "footer-text": "muted",
    "footer-dim": "dim",
    "markdown-h1-color": "mdHeading",
    "markdown-h2-color": "mdHeading",
    "markdown-h3-color": "mdHeading",
    "md-table-border": "mdCodeBlockBorder",
    "ctx-warn": "warning",
    "ctx-danger": "error",
    "completion-bg": "selectedBg",
}
MAX_BYTES = 1_000_000
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def _colour(value: object, variables: dict[str, Any], depth: int = 0) -> str | None:
    """A pi-ts colour value as a colour Textual parses (``None``: the terminal's default)."""
    from textual.color import Color, ColorParseError

    if isinstance(value, bool):
        return None
    if isinstance(value, int) and 0 <= value <= 255:
        from rich.color import Color as RichColor

        red, green, blue = RichColor.from_ansi(value).get_truecolor()
        return f"#{red:02x}{green:02x}{blue:02x}"
    if not isinstance(value, str) or not value:
        return None
    if value in variables and depth < 8:
        return _colour(variables[value], variables, depth + 1)
    try:
        Color.parse(value)
    except ColorParseError:
        return None
    return value


def theme_from_pi_ts(path: Path) -> Theme:
    """One pi-ts theme file as a Textual theme (raises ``ValueError`` when it is not one)."""
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ValueError("larger than 1 MB")
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, RecursionError, json.JSONDecodeError) as exc:
        raise ValueError(str(exc)) from None
    colors = data.get("colors") if isinstance(data, dict) else None
    variables = data.get("vars") or {}
    if not isinstance(colors, dict) or not isinstance(variables, dict):
        raise ValueError('needs a "colors" object (the TypeScript pi\'s theme format)')
    resolved = {role: _colour(value, variables) for role, value in colors.items()}
    palette = {key: resolved[role] for key, role in PALETTE.items() if resolved.get(role)}
    if "primary" not in palette:
        raise ValueError('its "accent" colour is missing or not a colour')
    background = _colour(colors.get("userMessageBg"), variables) or "#000000"
    dark = _is_dark(background)
    tokens = {token: resolved[role] for token, role in TOKENS.items() if resolved.get(role)}
    name = str(data.get("name") or "")
    name = name if NAME.fullmatch(name) else path.stem
    return Theme(name=name, dark=dark, variables=tokens, **palette)  # type: ignore[arg-type]


def _is_dark(colour: str) -> bool:
    from textual.color import Color

    return Color.parse(colour).brightness < 0.5
