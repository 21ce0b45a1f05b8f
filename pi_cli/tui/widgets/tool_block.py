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


def describe_args(name: str, args: Any) -> str:
    """A one-line summary of a call's arguments (``$ ls -la`` for bash, the path for files)."""
    if not isinstance(args, dict):
        return "" if args is None else str(args)
    if name == "bash" and "command" in args:
        return f"$ {args['command']}"
    if "path" in args and len(args) <= 2:
        extra = {k: v for k, v in args.items() if k != "path"}
        return str(args["path"]) + (f" {json.dumps(extra)}" if extra else "")
    text = json.dumps(args, ensure_ascii=False)
    return text if len(text) <= 200 else text[:199] + "…"


def clip(text: str, limit: int, tail: bool = False) -> str:
    """At most ``limit`` lines of ``text``, with a note saying how many were left out."""
    lines = text.rstrip("\n").splitlines()
    if len(lines) <= limit:
        return "\n".join(lines)
    hidden = len(lines) - limit
    if tail:
        return f"… {hidden} earlier lines\n" + "\n".join(lines[-limit:])
    return "\n".join(lines[:limit]) + f"\n… {hidden} more lines"


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

    def __init__(self, call_id: str, name: str, args: Any) -> None:
        super().__init__(classes="tool-block -pending")
        self.call_id = call_id
        self.tool_name = name
        self.args = args

    def compose(self) -> ComposeResult:
        title = Content.assemble((f"⚙ {self.tool_name} ", "bold"), describe_args(self.tool_name, self.args))
        yield Static(title, classes="tool-title", markup=False)
        yield Static("", classes="tool-output", markup=False)

    def progress(self, text: str) -> None:
        """Show the output so far (bash streams)."""
        self.query_one(".tool-output", Static).update(Content(clip(text, MAX_LIVE_LINES, tail=True)))

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
