"""``/export``, ``pi --export`` and RPC ``export_html``: a session as one self-contained HTML file.

The page holds the current branch (prompts, answers, thinking collapsed, tool calls with their
output and diffs, compactions, branch summaries) in the theme's colours, and nothing else: no
script at all, no external resource (styles inline, attached images as ``data:`` URLs), and a
Content-Security-Policy (``default-src 'none'``, the one stylesheet allowed by its hash, images
only from ``data:``), so even text that slipped through could neither run nor load anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_cli.shell.export_html._render import (
        ExportError,
        default_export_path,
        export_session,
        render_session,
    )

__all__ = ["ExportError", "default_export_path", "export_session", "render_session"]


def __getattr__(name: str) -> Any:
    # The renderer (markdown, styles, tomllib for themes) loads when a page is made, not with
    # every shell that registers /export.
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from pi_cli.shell.export_html import _render

    return getattr(_render, name)
