"""The export's stylesheet: theme colours (``themes/<name>.toml``, user themes in
``PI_HOME/themes``) as CSS variables, and rules that use only those variables."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from pi_cli.shell.paths import pi_home

_NAME = re.compile(r"[a-z][a-z0-9-]{0,40}\Z")
_COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}\Z")
FALLBACK = {
    "background": "#16161e",
    "surface": "#1a1b26",
    "panel": "#24283b",
    "foreground": "#c0caf5",
    "primary": "#7aa2f7",
    "secondary": "#bb9af7",
    "accent": "#7dcfff",
    "warning": "#e0af68",
    "error": "#f7768e",
    "success": "#9ece6a",
    "tool-title": "#7dcfff",
    "tool-output": "#a9b1d6",
    "tool-success-bg": "#1a2420",
    "tool-error-bg": "#2d1a20",
    "tool-error-text": "#f7768e",
    "diff-add": "#9ece6a",
    "diff-add-bg": "#1c2b1f",
    "diff-remove": "#f7768e",
    "diff-remove-bg": "#2e1a1f",
    "diff-context": "#737aa2",
    "thinking-text": "#6b7089",
    "border": "#3b4261",
    "user-message-bg": "#232433",
    "user-message-text": "#c0caf5",
    "notice-text": "#a9b1d6",
    "md-code-bg": "#1f2335",
}


def theme_colours(name: str) -> dict[str, str]:
    """Palette and tokens of theme ``name`` (unknown or broken: the dark defaults).

    Only ``#hex`` values with plain names get through: nothing from a theme file can close
    the CSS rule it lands in.
    """
    import themes

    colours = dict(FALLBACK)
    for directory in (pi_home() / "themes", Path(themes.__file__).parent):
        path = directory / f"{name}.toml"
        if not path.is_file():
            continue
        try:
            data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            break
        for section in ("palette", "tokens"):
            for key, value in (data.get(section) or {}).items():
                if _NAME.match(str(key)) and isinstance(value, str) and _COLOUR.match(value):
                    colours[str(key)] = value
        break
    return colours


RULES = """
* { box-sizing: border-box; }
body { margin: 0; background: var(--background); color: var(--foreground);
  font: 15px/1.55 system-ui, -apple-system, "Segoe UI", sans-serif; }
header, main, footer { max-width: 960px; margin: 0 auto; padding: 16px 20px; }
header { border-bottom: 1px solid var(--border); }
header h1 { margin: 0 0 6px; font-size: 20px; color: var(--primary); }
.meta { color: var(--notice-text); font-size: 13px; }
.meta span { margin-right: 14px; }
footer { color: var(--diff-context); font-size: 12px; border-top: 1px solid var(--border); }
.msg { margin: 14px 0; padding: 10px 14px; border-radius: 6px; border: 1px solid var(--border);
  overflow-wrap: anywhere; }
.msg.user { background: var(--user-message-bg); color: var(--user-message-text); }
.msg.assistant { background: var(--surface); }
.msg.note { background: transparent; color: var(--notice-text); font-size: 13px; }
.role { font-size: 12px; font-weight: 600; color: var(--secondary); margin-bottom: 4px;
  text-transform: uppercase; letter-spacing: .04em; }
.md p { margin: 6px 0; }
.md a { color: var(--accent); }
.md code, pre { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.md code { background: var(--md-code-bg); padding: 1px 4px; border-radius: 3px; }
pre { background: var(--md-code-bg); padding: 8px 10px; border-radius: 4px; overflow-x: auto;
  white-space: pre-wrap; margin: 6px 0; }
.md pre code { background: transparent; padding: 0; }
.md table { border-collapse: collapse; }
.md th, .md td { border: 1px solid var(--border); padding: 3px 8px; }
.md blockquote { border-left: 3px solid var(--border); margin: 6px 0; padding-left: 10px; }
details { margin: 8px 0; border: 1px solid var(--border); border-radius: 4px; }
details > summary { cursor: pointer; padding: 5px 10px; color: var(--tool-title); }
details > div, details > pre { margin: 0 10px 8px; }
details.thinking > summary { color: var(--thinking-text); font-style: italic; }
details.thinking .md { color: var(--thinking-text); }
.tool { background: var(--tool-success-bg); }
.tool.error { background: var(--tool-error-bg); }
.tool .name { font-weight: 600; margin-right: 8px; }
.tool .title { font-family: ui-monospace, monospace; color: var(--foreground); }
.tool pre.output { color: var(--tool-output); }
.tool.error pre.output, .error { color: var(--tool-error-text); }
.cut { color: var(--warning); font-style: italic; }
.diff .add { color: var(--diff-add); background: var(--diff-add-bg); display: block; }
.diff .del { color: var(--diff-remove); background: var(--diff-remove-bg); display: block; }
.diff .ctx { color: var(--diff-context); display: block; }
.diff .hunk { color: var(--accent); display: block; }
img.attached { max-width: 100%; border: 1px solid var(--border); border-radius: 4px; }
"""


def stylesheet(theme: str) -> str:
    """The whole ``<style>`` content for theme ``theme``."""
    variables = "\n".join(f"  --{k}: {v};" for k, v in sorted(theme_colours(theme).items()))
    return f":root {{\n{variables}\n}}\n{RULES}"
