"""One tool call: its arguments, live output, then the result (or the error, or a coloured diff)."""

from __future__ import annotations

import json
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

MAX_LIVE_LINES = 12  # while running, show the tail: bash output scrolls like a terminal
MAX_RESULT_LINES = 20
MAX_CHARS = 8000  # a single huge line (minified JSON, a binary file) is clipped too
MAX_TITLE_CHARS = 200


def _one_line(text: str, limit: int = MAX_TITLE_CHARS) -> str:
    """The first line of ``text``, at most ``limit`` characters, ``…`` when shortened."""
    first, _, rest = text.partition("\n")
    if len(first) > limit or rest.strip():
        return first[: limit - 1] + "…"
    return first


def fallback_title(args: Any) -> str:
    """A one-line summary of a call's arguments when its tool gave no title (unknown tools)."""
    if not isinstance(args, dict):
        return "" if args is None else _one_line(str(args))
    return _one_line(json.dumps(args, ensure_ascii=False))


def clip(text: str, limit: int, tail: bool = False) -> str:
    """At most ``limit`` lines and :data:`MAX_CHARS` characters of ``text`` (the last ones if
    ``tail``), with a note saying what was left out."""
    text = text.rstrip("\n")
    cut = len(text) - MAX_CHARS
    if cut > 0:
        text = text[cut:] if tail else text[:MAX_CHARS]
    lines = text.splitlines()
    hidden = max(0, len(lines) - limit)
    if hidden:
        lines = lines[-limit:] if tail else lines[:limit]
    if not hidden and cut <= 0:
        return "\n".join(lines)
    note = f"{hidden} {'earlier' if tail else 'more'} lines" if hidden else ""
    if cut > 0:
        note = ", ".join(filter(None, [note, f"{cut} {'earlier' if tail else 'more'} characters"]))
    return f"… {note}\n" + "\n".join(lines) if tail else "\n".join(lines) + f"\n… {note}"


def diff_content(diff: str, limit: int = 60) -> Content:
    """A unified diff coloured with the theme's diff tokens."""
    parts: list[Content] = []
    lines = diff.rstrip("\n").splitlines()
    for line in lines[:limit]:
        if line.startswith(("+++", "---")):
            style = "bold $diff-context"
        elif line.startswith("+"):
            style = "$diff-add on $diff-add-bg"
        elif line.startswith("-"):
            style = "$diff-remove on $diff-remove-bg"
        else:
            style = "$diff-context"
        parts.append(Content.styled(line, style))
    if len(lines) > limit:
        parts.append(Content.styled(f"… {len(lines) - limit} more diff lines", "$diff-context"))
    return Content("\n").join(parts)


class ToolBlock(Vertical):
    """A tool call block; state shows through the classes ``-pending``, ``-success``, ``-error``."""

    def __init__(self, call_id: str, name: str, args: Any, title: str = "") -> None:
        super().__init__(classes="tool-block -pending")
        self.call_id = call_id
        self.tool_name = name
        self.args = args
        self.title = _one_line(title) if title else fallback_title(args)

    def compose(self) -> ComposeResult:
        title = Content.assemble((f"⚙ {self.tool_name} ", "bold"), self.title)
        yield Static(title, classes="tool-title", markup=False)
        yield Static("", classes="tool-output", markup=False)

    def progress(self, text: str) -> None:
        """Show the output so far (bash streams)."""
        self.query_one(".tool-output", Static).update(
            Content(clip(text, MAX_LIVE_LINES, tail=True))
        )

    def finish(self, text: str, is_error: bool, details: Any) -> None:
        """Show the result, or the error in the theme's error colour, or the edit's diff."""
        self.set_class(False, "-pending")
        self.set_class(is_error, "-error")
        self.set_class(not is_error, "-success")
        output = self.query_one(".tool-output", Static)
        diff = details.get("diff") if isinstance(details, dict) else None
        if diff and not is_error:
            output.update(diff_content(str(diff)))
        else:
            output.update(Content(clip(text, MAX_RESULT_LINES)))
