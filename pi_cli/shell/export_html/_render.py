"""The HTML page of a session (see the package's docstring)."""

from __future__ import annotations

import base64
import datetime as _dt
import hashlib
import os
from pathlib import Path
from typing import Any

from pi_cli import __version__
from pi_cli.shell.export_html._blocks import esc, image, markdown, pre, text_of, tool_block
from pi_cli.shell.export_html._style import stylesheet
from pi_cli.shell.session.names import title_of
from pi_cli.shell.session.store import SessionStore
from pi_cli.shell.session.tree import tree_entries

__all__ = ["ExportError", "default_export_path", "export_session", "render_session"]


class ExportError(Exception):
    """The export could not be written (the message says why)."""


def default_export_path(store: SessionStore, cwd: Path) -> Path:
    """pi's default: ``pi-session-<session file name>.html`` in the working directory."""
    stem = store.path.stem if store.path is not None else store.session_id
    return cwd / f"pi-session-{stem}.html"


def _message(data: dict[str, Any], results: dict[str, dict[str, Any]]) -> str:
    message = data.get("message")
    if not isinstance(message, dict):
        return ""
    role = message.get("role")
    if role == "user":
        content = message.get("content")
        blocks = content if isinstance(content, list) else []
        images = "".join(
            image(b) for b in blocks if isinstance(b, dict) and b.get("type") == "image"
        )
        return f'<article class="msg user"><div class="role">You</div>{markdown(text_of(content))}{images}</article>'
    if role == "bashExecution":
        body = f"$ {message.get('command', '')}\n{message.get('output', '')}"
        return f'<article class="msg user"><div class="role">You ran</div>{pre(body)}</article>'
    if role == "toolResult":
        return ""  # shown inside its call's block
    if role != "assistant":
        return f'<article class="msg note">[{esc(role)} message]</article>'
    parts = [
        f'<article class="msg assistant"><div class="role">{esc(message.get("model") or "assistant")}</div>'
    ]
    for block in message.get("content") or []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append(markdown(str(block.get("text", ""))))
        elif kind == "thinking" and str(block.get("thinking", "")).strip():
            parts.append(
                f'<details class="thinking"><summary>Thinking</summary>{markdown(str(block["thinking"]))}</details>'
            )
        elif kind == "toolCall":
            parts.append(tool_block(block, results.get(str(block.get("id")))))
    if message.get("stopReason") in ("error", "aborted", "refusal"):
        note = message.get("errorMessage") or message.get("refusal") or message.get("stopReason")
        parts.append(f'<div class="error">{esc(note)}</div>')
    parts.append("</article>")
    return "".join(parts)


def _entry(data: dict[str, Any], results: dict[str, dict[str, Any]]) -> str:
    kind = data.get("type")
    if kind == "message":
        return _message(data, results)
    if kind in ("compaction", "branch_summary"):
        label = "Earlier conversation, compacted" if kind == "compaction" else "Branch summary"
        summary = markdown(str(data.get("summary", "")))
        return f'<details class="msg note"><summary>{label}</summary>{summary}</details>'
    if kind == "model_change":
        return f'<div class="msg note">Model: {esc(data.get("model"))}</div>'
    return ""


def render_session(store: SessionStore, theme: str = "dark") -> str:
    """The whole page for ``store``'s current branch."""
    entries = list(store.iter_entries(store.path_to()))
    results = {}
    for data in entries:
        message = data.get("message")
        if (
            data.get("type") == "message"
            and isinstance(message, dict)
            and message.get("role") == "toolResult"
        ):
            results[str(message.get("toolCallId"))] = message
    body = "\n".join(filter(None, (_entry(d, results) for d in entries)))
    css = stylesheet(theme)
    digest = base64.b64encode(hashlib.sha256(css.encode("utf-8")).digest()).decode()
    policy = (
        f"default-src 'none'; style-src 'sha256-{digest}'; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )
    title = title_of(store) or "pi session"
    shown = tree_entries(store)
    parents = {e.parent_id for e in shown}
    branches = sum(1 for e in shown if e.id not in parents)
    other = f"<span>{branches - 1} other branch(es) not shown</span>" if branches > 1 else ""
    stamp = _dt.datetime.now().strftime("%Y-%m-%d %H:%M")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(title)}</title>
<style>{css}</style>
</head>
<body>
<header><h1>{esc(title)}</h1><div class="meta"><span>session {esc(store.session_id)}</span><span>{esc(store.header.cwd)}</span><span>started {esc(store.header.timestamp)}</span>{other}</div></header>
<main>
{body}
</main>
<footer>Exported by pi {esc(__version__)} on {stamp}.</footer>
</body>
</html>
"""


def export_session(store: SessionStore, target: Path, theme: str = "dark") -> Path:
    """Write the page to ``target`` (atomically); returns the path written."""
    from tools.safe_files import NotARegularFile, pin

    page = render_session(store, theme)
    # The directories as the user named them (followed once, on held descriptors); a symlink
    # at the file's own name is replaced, never written through (one planted by the model).
    try:
        with pin(
            os.path.abspath(target), follow=True, create_dirs=True, follow_last=False
        ) as place:
            place.write_atomic(page.encode("utf-8", "replace"), over_symlink=True)
    except NotARegularFile:
        raise ExportError(f"Cannot write {target}: it is not a regular file") from None
    except OSError as exc:
        raise ExportError(f"Cannot write {target}: {exc.strerror or exc}") from None
    return target
