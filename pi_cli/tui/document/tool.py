"""One tool call: title, live output, then the result's *tail* (errors live there) or a diff.

A block rests in ``preview`` (live calls: the last lines, the exact number of earlier lines and
how to see them) or ``collapsed`` (resumed calls: one summary line); Ctrl+O, or a click, expands
it to the whole result (up to :data:`EXPANDED_LINES`) and back. A ``task`` call holds its
sub-agent's panel below its output.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Literal

from textual.content import Content

from pi_cli.tui.document import styles
from pi_cli.tui.document.rows import Block, Row, Stack, fit, wrap

LIVE_LINES = 12  # while running: the tail, like a terminal
PREVIEW_LINES = 10  # a finished result: its last lines
EXPANDED_LINES = 10_000  # the tools cap theirs at 2000 lines / 50 KB (plus notes); MCP's not
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
        parts.append(Content.styled(f"… {len(lines) - limit} more diff lines", styles.TOOL_HINT))
    return Content("\n").join(parts)


DIAGNOSTIC_LINES = 3  # first new problems shown under a result (all of them when expanded)


def diagnostics_content(details: Any, expanded: bool) -> Content | None:
    """The language servers' verdict on a change (``details["diagnostics"]``): per file its
    new errors and warnings counted, then the first of them (None: nothing to show)."""
    report = details.get("diagnostics") if isinstance(details, dict) else None
    files = report.get("files") if isinstance(report, dict) else None
    if not isinstance(files, list):
        return None
    parts: list[Content] = []
    for item in files:
        if not isinstance(item, dict):
            continue
        new, errors = int(item.get("newCount") or 0), int(item.get("newErrors") or 0)
        fixed = int(item.get("fixed") or 0)
        if not new and not fixed:
            continue
        path, server = str(item.get("path", "")), str(item.get("server", ""))
        counts = [_plural(errors, "new error")] if errors else []
        counts += [_plural(new - errors, "new warning")] if new - errors else []
        counts += [f"{fixed} fixed"] if fixed else []
        style = f"bold {styles.TOOL_ERROR}" if errors else styles.TOOL_HINT
        parts.append(Content.styled(f"{server}: {', '.join(counts)} in {path}", style))
        raw = item.get("new")
        listed: list[Any] = raw if isinstance(raw, list) else []
        for diagnostic in listed[: None if expanded else DIAGNOSTIC_LINES]:
            if not isinstance(diagnostic, dict):
                continue
            where = f"{diagnostic.get('line')}:{diagnostic.get('column')}"
            first = str(diagnostic.get("message", "")).split("\n", 1)[0]
            tone = styles.TOOL_ERROR if diagnostic.get("severity") == "error" else styles.TOOL_HINT
            parts.append(Content.styled(_cut(f"  {where} {first}"), tone))
        if len(listed) > DIAGNOSTIC_LINES and not expanded:
            more = len(listed) - DIAGNOSTIC_LINES
            parts.append(Content.styled(f"  … {more} more", styles.TOOL_HINT))
    return Content("\n").join(parts) if parts else None


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


class ToolBlock(Block):
    """A tool call: its state is ``pending``, ``success`` or ``error``; ``expanded`` or resting."""

    margin_bottom = 1

    def __init__(
        self,
        call_id: str,
        name: str,
        args: Any,
        title: str = "",
        clock: Callable[[], float] | None = None,
        rest: Rest = "preview",
    ) -> None:
        super().__init__()
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
        self.cursor = False
        self.text = ""  # the live output, then the result the model read
        self.details: Any = None
        self.subagents = Stack(self)  # a task call's sub-agent panels
        self._title = self._title_content()
        self._output = Content("")
        self._rows: tuple[int, list[Row]] | None = None

    # ------------------------------------------------------------------ state

    @property
    def state(self) -> str:
        """``pending``, ``success`` or ``error``."""
        if not self.finished:
            return "pending"
        return "error" if self.is_error else "success"

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
            parts.append((f" · {self.duration:.1f}s", styles.TOOL_HINT))
        elif not self.finished and now is not None:
            parts.append((f" · {max(0.0, now - self.started):.1f}s", styles.TOOL_HINT))
        return Content.assemble(*parts).stylize_before("$tool-title")

    def _show(self, title: Content | None = None, output: Content | None = None) -> None:
        if title is not None:
            self._title = title
        if output is not None:
            self._output = output
        self._rows = None
        self.changed()

    def tick(self, now: float) -> None:
        """Spinner and elapsed time while the call runs (called a few times a second); a
        ``task`` call's sub-agents animate their own running tools."""
        if self.finished:
            return
        for panel in self.subagents.items:
            panel.tick(now)
        title = self._title_content(now)
        cached = self._rows
        if cached is not None and len(wrap(title, cached[0])) == len(wrap(self._title, cached[0])):
            self._title = title
            self._rows = None
            self.redrawn()  # as many rows as before: nothing to lay out
        else:
            self._show(title=title)

    def progress(self, text: str) -> None:
        """Show the output so far (bash streams)."""
        self.text = text
        lines, hidden = tail(text, LIVE_LINES)
        head = (
            [Content.styled(f"… {_plural(hidden, 'earlier line')}", styles.TOOL_HINT)]
            if hidden
            else []
        )
        self._show(output=Content("\n").join([*head, *map(Content, lines)]))

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
        self._title = self._title_content()
        self.render_output()

    def set_expanded(self, expanded: bool) -> None:
        """Show the whole result (``True``) or its resting form."""
        if expanded != self.expanded:
            self.expanded = expanded
            if self.finished:
                self.render_output()
            elif not expanded:
                self.progress(self.text)
            else:
                self._show(output=Content("\n".join(tail(self.text, EXPANDED_LINES)[0])))

    def toggle(self) -> None:
        """Expand or go back to the resting form."""
        self.set_expanded(not self.expanded)

    def set_cursor(self, on: bool) -> None:
        """Show or hide the transcript cursor on this block."""
        if on != self.cursor:
            self.cursor = on
            self.redrawn()

    def hit(self, index: int) -> bool:
        return True  # a click anywhere on the block toggles it

    def children(self) -> Sequence[Block]:
        return self.subagents.items

    def child_changed(self, child: Block) -> None:
        self.subagents.dirty(child.slot + 1)
        self.changed()

    def plain_text(self) -> str:
        return f"{self.tool_name} {self.title}\n{self.text}"

    # ------------------------------------------------------------------ drawing

    @property
    def diff(self) -> str | None:
        """The edit's unified diff, when the call changed a file."""
        diff = self.details.get("diff") if isinstance(self.details, dict) else None
        return str(diff) if diff and not self.is_error else None

    @property
    def output_text(self) -> str:
        """What the output area shows now, as text."""
        return self._output.plain

    def _full_output_note(self, shown: str) -> Content | None:
        path = self.details.get("full_output_path") if isinstance(self.details, dict) else None
        if path and str(path) not in shown:
            return Content.styled(f"Full output: {path}", styles.TOOL_HINT)
        return None

    def render_output(self) -> None:
        """Draw the result for the current state (preview, collapsed or expanded), then the
        language servers' diagnostics of the change, if any."""
        shown = self._result_content()
        found = diagnostics_content(self.details, self.expanded) if not self.is_error else None
        self._show(output=shown if found is None else Content("\n").join([shown, found]))

    def _result_content(self) -> Content:
        if (diff := self.diff) is not None:
            lines = diff.count("\n") + 1
            limit = 100_000 if self.expanded else DIFF_PREVIEW_LINES
            if self.rest == "collapsed" and not self.expanded:
                return self._summary(lines, "diff line")
            return diff_content(diff, limit)
        if self.expanded:
            shown, hidden = tail(self.text, EXPANDED_LINES)
        elif self.rest == "collapsed":
            total = tail(self.text, 0)[1]
            last = tail(self.text, 1)[0] if self.is_error else []
            return Content("\n").join([self._summary(total, "line"), *map(Content, last)])
        else:
            shown, hidden = tail(self.text, PREVIEW_LINES)
        parts: list[Content] = []
        path = self.details.get("full_output_path") if isinstance(self.details, dict) else None
        if self.expanded and path and (hidden or "[Showing lines" in self.text):
            # The tool kept only the end: say where the beginning is.
            parts.append(Content.styled(f"The earliest lines are in {path}", styles.TOOL_HINT))
        if hidden:
            hint = ", Ctrl+O to expand"
            if self.expanded:
                hint = f" not drawn; {'all' if path else 'the whole result'} in {path or 'the session file'}"
            parts.append(
                Content.styled(f"… ({_plural(hidden, 'earlier line')}{hint})", styles.TOOL_HINT)
            )
        parts += [Content(line) for line in shown] or [
            Content.styled("(no output)", styles.TOOL_HINT)
        ]
        if (note := self._full_output_note("\n".join(shown))) is not None:
            parts.append(note)
        return Content("\n").join(parts)

    def _summary(self, count: int, what: str) -> Content:
        return Content.styled(f"({_plural(count, what)}, Ctrl+O to expand)", styles.TOOL_HINT)

    def _own_rows(self, width: int) -> list[Row]:
        """Title and output rows at the block's inner ``width`` (cached)."""
        if self._rows is None or self._rows[0] != width:
            colour = styles.TOOL_ERROR if self.is_error else styles.TOOL_OUTPUT
            rows = wrap(self._title, width)
            if self._output.plain:
                rows += wrap(self._output.stylize_before(colour), width)
            self._rows = (width, rows)
        return self._rows[1]

    @staticmethod
    def _inner(width: int) -> int:
        return max(1, width - 4)  # bar, padding either side, a right margin

    def measure(self, width: int) -> int:
        inner = self._inner(width)
        height = len(self._own_rows(inner))
        if self.subagents.items:
            height += 1 + self.subagents.height(inner)
        return height

    def draw(self, index: int, width: int) -> Row:
        inner = self._inner(width)
        own = self._own_rows(inner)
        if index < len(own):
            row = own[index]
        else:
            found = self.subagents.locate(index - len(own) - 1, inner)
            row = fit(Content(""), inner) if found is None else found[0].draw(found[1], inner)
        if self.cursor:
            bar, background = styles.CURSOR_BORDER, styles.CURSOR_BG
        else:
            bar = styles.TOOL_ERROR if self.is_error else styles.BORDER
            background = styles.TOOL_BG[self.state]
        framed = row.framed(Content.styled("▌", bar) + Content(" "), Content(" ")).under(background)
        return framed.framed(Content(""), Content(" "))

    def locate(self, index: int, width: int) -> tuple[Block, int, int] | None:
        inner = self._inner(width)
        own = len(self._own_rows(inner))
        if index <= own:
            return None
        found = self.subagents.locate(index - own - 1, inner)
        return None if found is None else (found[0], found[1], inner)
