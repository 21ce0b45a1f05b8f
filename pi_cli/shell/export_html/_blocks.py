"""HTML for the pieces of a session: Markdown without raw HTML, tool blocks, diffs, thinking.

Everything from the session is text: it is escaped (``html.escape``) or goes through
markdown-it with raw HTML off, whose link check drops ``javascript:``, ``vbscript:``, ``file:``
and ``data:`` links; images from Markdown never load (only images attached to a message,
validated base64 of a known image type, are shown as ``data:`` URLs). Long outputs are cut.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import re
from functools import cache
from typing import Any

MAX_OUTPUT_LINES = 400
MAX_OUTPUT_CHARS = 40_000
MAX_ARGS_CHARS = 8_000
MAX_IMAGE_BYTES = 8_000_000
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    """Text without control characters or lone surrogates (neither belongs in a page)."""
    text = text.encode("utf-8", "replace").decode("utf-8")
    return _CONTROL.sub("\ufffd", text)


def esc(text: Any) -> str:
    """Escaped text (quotes too: safe in attributes)."""
    return html.escape(clean(str(text)), quote=True)


@cache
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])

    def image(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        src = str(token.attrGet("src") or "")
        alt = esc(token.content or "image")
        return f'<span class="cut">[image not loaded: {alt}] {esc(src[:200])}</span>'

    def link_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        tokens[idx].attrSet("rel", "noopener noreferrer nofollow")
        return str(renderer.renderToken(tokens, idx, options, env))

    md.add_render_rule("image", image)
    md.add_render_rule("link_open", link_open)
    return md


def markdown(text: str) -> str:
    """Markdown as HTML, raw HTML escaped (text too long is shown as cut plain text)."""
    text = clean(text)
    if len(text) > MAX_OUTPUT_CHARS * 4:
        return pre(text)
    return f'<div class="md">{_markdown().render(text)}</div>'


def cut(text: str) -> tuple[str, str]:
    """(text shown, a note on what was cut or "")."""
    text = clean(text)
    lines = text.split("\n")
    note = ""
    if len(lines) > MAX_OUTPUT_LINES:
        text = "\n".join(lines[:MAX_OUTPUT_LINES])
        note = f"… {len(lines) - MAX_OUTPUT_LINES} more lines not shown"
    if len(text) > MAX_OUTPUT_CHARS:
        rest = len(text) - MAX_OUTPUT_CHARS
        text = text[:MAX_OUTPUT_CHARS]
        note = f"… {rest} more characters not shown" + (f" ({note[2:]})" if note else "")
    return text, note


def pre(text: str, css: str = "") -> str:
    """A ``<pre>`` block, cut when long."""
    shown, note = cut(text)
    classes = f' class="{css}"' if css else ""
    tail = f'<div class="cut">{esc(note)}</div>' if note else ""
    return f"<pre{classes}>{esc(shown)}</pre>{tail}"


def diff(text: str) -> str:
    """A unified diff, coloured line by line."""
    shown, note = cut(text)
    rows = []
    for line in shown.split("\n"):
        kind = "ctx"
        if line.startswith("+") and not line.startswith("+++"):
            kind = "add"
        elif line.startswith("-") and not line.startswith("---"):
            kind = "del"
        elif line.startswith("@@"):
            kind = "hunk"
        rows.append(f'<span class="{kind}">{esc(line) or " "}</span>')
    tail = f'<div class="cut">{esc(note)}</div>' if note else ""
    return f'<pre class="diff">{"".join(rows)}</pre>{tail}'


def image(block: dict[str, Any]) -> str:
    """An attached image as a ``data:`` URL, only when it is what it claims to be."""
    mime, data = block.get("mimeType"), block.get("data")
    if mime not in IMAGE_TYPES or not isinstance(data, str):
        return '<div class="cut">[an image of an unsupported type]</div>'
    if len(data) > MAX_IMAGE_BYTES * 4 // 3:
        return '<div class="cut">[an image too big to include]</div>'
    try:
        base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return '<div class="cut">[an image that is not valid base64]</div>'
    return f'<img class="attached" alt="attached image" src="data:{mime};base64,{data}">'


def text_of(content: Any) -> str:
    """The text of a message's content (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text", ""))
            for b in content
            if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def call_title(name: str, args: Any) -> str:
    """A one-line title for a tool call (``$ cmd``, a path, or the arguments)."""
    if not isinstance(args, dict):
        return ""
    if name == "bash" and isinstance(args.get("command"), str):
        return "$ " + str(args["command"]).strip().split("\n", 1)[0][:300]
    for key in ("path", "file_path", "pattern", "query", "url"):
        if isinstance(args.get(key), str):
            return str(args[key])[:300]
    return json.dumps(args, ensure_ascii=False)[:200]


def tool_block(call: dict[str, Any], result: dict[str, Any] | None) -> str:
    """A tool call with its arguments and result (output, or the edit's diff)."""
    name = str(call.get("name", "?"))
    args = call.get("arguments")
    failed = bool(result and result.get("isError"))
    parts = [
        f'<details class="tool{" error" if failed else ""}" open><summary>'
        f'<span class="name">{esc(name)}</span><span class="title">{esc(call_title(name, args))}'
        "</span></summary>"
    ]
    arg_text = json.dumps(args, ensure_ascii=False, indent=2)
    if len(arg_text) > MAX_ARGS_CHARS:
        arg_text = (
            arg_text[:MAX_ARGS_CHARS] + f"\n… {len(arg_text) - MAX_ARGS_CHARS} more characters"
        )
    parts.append(f"<details><summary>arguments</summary>{pre(arg_text)}</details>")
    if result is None:
        parts.append('<div class="cut">no result recorded</div>')
    else:
        details = result.get("details")
        if isinstance(details, dict) and isinstance(details.get("diff"), str) and not failed:
            parts.append(diff(details["diff"]))
        else:
            parts.append(pre(text_of(result.get("content")), "output"))
    parts.append("</details>")
    return "".join(parts)
