"""One tool call: title, live output, then the result's *tail* (errors live there) or a diff.

A block rests in ``preview`` (live calls: the last lines, the exact number of earlier lines and
how to see them) or ``collapsed`` (resumed calls: one summary line); Ctrl+O, or a click, expands
it to the whole result (up to :data:`EXPANDED_LINES`) and back.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

LIVE_LINES = 12  # while running: the tail, like a terminal
PREVIEW_LINES = 10  # a finished result: its last lines
EXPANDED_LINES = 2000  # the tools cap their results at 2000 lines / 50 KB anyway
DIFF_PREVIEW_LINES = 40
LINE_CHARS = 500  # one shown line is cut here (minified JSON, a binary file)
MAX_TITLE_CHARS = 200
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
Rest = Literal["preview", "collapsed"]


def spinner_frame(now: float) -> str:
    """The spinner glyph for time ``now`` (10 frames a second)."""
    return SPINNER[int(now * 10) % len(SPINNER)]


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


def _cut(line: str) -> str:
    return (
        line
        if len(line) <= LINE_CHARS
        else line[:LINE_CHARS] + f"… (+{len(line) - LINE_CHARS} chars)"
    )


def tail(text: str, limit: int) -> tuple[list[str], int]:
    """(the last ``limit`` lines of ``text``, each cut to :data:`LINE_CHARS`; how many are hidden).

    The count is of real lines, taken before anything is cut.
    """
    lines = text.rstrip("\n").split("\n") if text.strip() else []
    hidden = max(0, len(lines) - limit)
    return [_cut(line) for line in lines[hidden:]], hidden


def diff_content(diff: str, limit: int) -> Content:
    """A unified diff coloured with the theme's diff tokens (its first ``limit`` lines)."""
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
        parts.append(Content.styled(_cut(line), style))
    if len(lines) > limit:
        parts.append(Content.styled(f"… {len(lines) - limit} more diff lines", "$tool-hint"))
    return Content("\n").join(parts)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class ToolBlock(Vertical):
    """A tool call block; its state shows through ``-pending``, ``-success``, ``-error`` and
    ``-expanded``."""

    def __init__(
        self,
        call_id: str,
        name: str,
        args: Any,
        title: str = "",
        clock: Callable[[], float] | None = None,
        rest: Rest = "preview",
    ) -> None:
        super().__init__(classes="tool-block -pending")
        self.call_id = call_id
        self.tool_name = name
        self.args = args
        self.title = _one_line(title) if title else fallback_title(args)
        self.clock = clock
        self.started = clock() if clock is not None else 0.0
        self.duration: float | None = None
        self.rest: Rest = rest
        self.expanded = False
        self.is_error = False
        self.finished = False
        self.text = ""  # the live output, then the result the model read
        self.details: Any = None
        self.title_view = Static(self._title_content(), classes="tool-title", markup=False)
        self.output = Static("", classes="tool-output", markup=False)

    def compose(self) -> ComposeResult:
        yield self.title_view
        yield self.output

    # ------------------------------------------------------------------ state

    def _title_content(self, now: float | None = None) -> Content:
        if not self.finished:
            glyph, style = spinner_frame(now or 0.0) if now is not None else "⚙", "$tool-title"
        elif self.is_error:
            glyph, style = "✗", "bold $tool-error-text"
        else:
            glyph, style = "✓", "bold $tool-success-text"
        parts: list[tuple[str, str] | str] = [(f"{glyph} ", style), (f"{self.tool_name} ", "bold")]
        parts.append(self.title)
        if self.finished and self.duration is not None:
            parts.append((f" · {self.duration:.1f}s", "$tool-hint"))
        elif not self.finished and now is not None:
            parts.append((f" · {max(0.0, now - self.started):.1f}s", "$tool-hint"))
        return Content.assemble(*parts)

    def tick(self, now: float) -> None:
        """Spinner and elapsed time while the call runs (called a few times a second)."""
        if not self.finished:
            self.title_view.update(self._title_content(now))

    def progress(self, text: str) -> None:
        """Show the output so far (bash streams)."""
        self.text = text
        lines, hidden = tail(text, LIVE_LINES)
        head = (
            [Content.styled(f"… {_plural(hidden, 'earlier line')}", "$tool-hint")] if hidden else []
        )
        self.output.update(Content("\n").join([*head, *map(Content, lines)]))

    def finish(
        self, text: str, is_error: bool, details: Any, duration: float | None = None
    ) -> None:
        """Show the result (its tail), the error in the theme's error colour, or the edit's diff."""
        self.finished = True
        self.is_error = is_error
        self.text = text
        self.details = details
        if duration is not None:
            self.duration = duration
        elif self.clock is not None:
            self.duration = max(0.0, self.clock() - self.started)
        self.set_class(False, "-pending")
        self.set_class(is_error, "-error")
        self.set_class(not is_error, "-success")
        self.title_view.update(self._title_content())
        self.render_output()

    def set_expanded(self, expanded: bool) -> None:
        """Show the whole result (``True``) or its resting form."""
        if expanded != self.expanded:
            self.expanded = expanded
            self.set_class(expanded, "-expanded")
            if self.finished:
                self.render_output()
            elif not expanded:
                self.progress(self.text)
            else:
                self.output.update(Content("\n".join(tail(self.text, EXPANDED_LINES)[0])))

    def toggle(self) -> None:
        """Expand or go back to the resting form."""
        self.set_expanded(not self.expanded)

    @on(events.Click)
    def _clicked(self, event: events.Click) -> None:
        self.toggle()

    # ------------------------------------------------------------------ drawing

    @property
    def diff(self) -> str | None:
        """The edit's unified diff, when the call changed a file."""
        diff = self.details.get("diff") if isinstance(self.details, dict) else None
        return str(diff) if diff and not self.is_error else None

    def _full_output_note(self, shown: str) -> Content | None:
        path = self.details.get("full_output_path") if isinstance(self.details, dict) else None
        if path and str(path) not in shown:
            return Content.styled(f"Full output: {path}", "$tool-hint")
        return None

    def render_output(self) -> None:
        """Draw the result for the current state (preview, collapsed or expanded)."""
        if (diff := self.diff) is not None:
            lines = diff.count("\n") + 1
            limit = 100_000 if self.expanded else DIFF_PREVIEW_LINES
            if self.rest == "collapsed" and not self.expanded:
                self.output.update(self._summary(lines, "diff line"))
            else:
                self.output.update(diff_content(diff, limit))
            return
        if self.expanded:
            shown, hidden = tail(self.text, EXPANDED_LINES)
        elif self.rest == "collapsed":
            total = tail(self.text, 0)[1]
            last = tail(self.text, 1)[0] if self.is_error else []
            self.output.update(
                Content("\n").join([self._summary(total, "line"), *map(Content, last)])
            )
            return
        else:
            shown, hidden = tail(self.text, PREVIEW_LINES)
        parts: list[Content] = []
        if hidden:
            hint = "" if self.expanded else ", Ctrl+O to expand"
            parts.append(
                Content.styled(f"… ({_plural(hidden, 'earlier line')}{hint})", "$tool-hint")
            )
        parts += [Content(line) for line in shown] or [Content.styled("(no output)", "$tool-hint")]
        if (note := self._full_output_note("\n".join(shown))) is not None:
            parts.append(note)
        self.output.update(Content("\n").join(parts))

    def _summary(self, count: int, what: str) -> Content:
        return Content.styled(f"({_plural(count, what)}, Ctrl+O to expand)", "$tool-hint")
