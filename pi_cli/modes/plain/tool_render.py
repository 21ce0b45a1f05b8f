"""How the plain REPL prints one tool call: its title, then the result's *tail* or the edit's diff.

Like the TUI's tool blocks (``pi_cli/tui/document/tool.py``): a failure, the exit code and the
``[Showing lines … Full output: …]`` note are at the end of a result, so the end is what is shown,
with the exact number of earlier lines; an edit shows its diff in red and green; the title is the
tool's own words (``bash $ ls -la``, ``edit hello.mjs``), not its JSON arguments.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from rich.console import Console, RenderableType
from rich.segment import Segment, Segments
from rich.text import Text

from pi_cli.shell import clean, redact, shown_result

PREVIEW_LINES = 10  # a finished result: its last lines (the TUI's preview)
DIFF_LINES = 40
LINE_CHARS = 300  # one shown line is cut here (minified JSON, a binary file)
TITLE_CHARS = 200


def safe(text: str) -> str:
    """Model, tool or file text made safe to print (no control sequences, no keys)."""
    return clean(redact(text))


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cut(line: str) -> str:
    if len(line) <= LINE_CHARS:
        return line
    return line[:LINE_CHARS] + f"… (+{len(line) - LINE_CHARS} chars)"


def head(text: str, max_lines: int) -> tuple[list[str], int]:
    """(the first ``max_lines`` lines, each clipped; how many lines were left out)."""
    lines = text.rstrip("\n").splitlines()
    return [clip(line, LINE_CHARS) for line in lines[:max_lines]], max(0, len(lines) - max_lines)


def tail(text: str, limit: int = PREVIEW_LINES) -> tuple[list[str], int]:
    """(the last ``limit`` lines of ``text``, each cut; how many lines come before them)."""
    lines = text.rstrip("\n").split("\n") if text.strip() else []
    hidden = max(0, len(lines) - limit)
    return [_cut(line) for line in lines[hidden:]], hidden


def format_args(args: Any) -> str:
    """Arguments as compact ``key=value`` pairs on one line (for tools that give no title)."""
    if isinstance(args, dict):
        parts = []
        for key, value in args.items():
            shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
            parts.append(f"{key}={shown}")
        text = "  ".join(parts)
    else:
        text = "" if args is None else json.dumps(args, ensure_ascii=False)
    first, *rest = text.splitlines() or [""]
    return first + (" …" if rest else "")


def brief_args(args: Any) -> str:
    """The most telling argument of a call (``package.json`` for read, the command for bash)."""
    if isinstance(args, dict):
        keys = [k for k in ("command", "path", "file_path", "pattern", "query", "url") if k in args]
        keys += [k for k, v in args.items() if isinstance(v, str | int | float)]
        if keys:
            return clip(str(args[keys[0]]).replace("\n", " "), 80)
    return ""


def call_title(
    name: str, args: Any, describe: Callable[[str, Any], str], *, brief: bool = False
) -> str:
    """``$ ls -la`` for bash, ``hello.mjs`` for edit: the tool's own one-line title of a call;
    for a tool that gives none, its arguments (``brief``: the most telling one)."""
    title = describe(name, args) or (brief_args(args) if brief else format_args(args))
    first, _, rest = title.partition("\n")
    return safe(clip(first + (" …" if rest.strip() else ""), TITLE_CHARS))


def call_line(name: str, title: str) -> Text:
    """``▸ bash $ ls -la``: printed when the call starts."""
    line = Text("▸ ", style="magenta")
    line.append(safe(name), style="bold magenta")
    if title:
        line.append(" " + title, style="magenta")
    return line


def diff_text(diff: str, limit: int = DIFF_LINES) -> Text:
    """A unified diff, indented, ``-`` lines red and ``+`` lines green (its first ``limit``)."""
    lines = safe(diff).rstrip("\n").splitlines()
    out = Text()
    for line in lines[:limit]:
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        else:
            style = "dim"
        out.append("  " + _cut(line) + "\n", style=style)
    if len(lines) > limit:
        out.append(f"  … {len(lines) - limit} more diff lines\n", style="dim")
    out.rstrip()
    return out


def result_text(name: str, text: str, is_error: bool, details: Any) -> Text:
    """The end of a finished call: the edit's diff, or the result's last lines (errors in red),
    the number of earlier lines, and where the full output is when the tool saved it."""
    diff = details.get("diff") if isinstance(details, dict) else None
    if diff and not is_error:  # the diff hides the result's text: its new problems under it
        return diff_text(str(diff)).append_text(diagnostics_text(details))
    lines, hidden = tail(safe(shown_result(name, text, details)))
    out = Text()
    if hidden:
        noun = "line" if hidden == 1 else "lines"
        out.append(f"  … ({hidden} earlier {noun})\n", style="dim")
    body_style = "red" if is_error else ""
    if not lines:
        out.append("  (error)\n" if is_error else "  (no output)\n", style=body_style or "dim")
    for line in lines:
        out.append(f"  {line}".rstrip() + "\n", style=body_style)
    path = details.get("full_output_path") if isinstance(details, dict) else None
    if path and str(path) not in "\n".join(lines):
        out.append(f"  Full output: {safe(str(path))}\n", style="dim")
    out.rstrip()
    return out


DIAGNOSTIC_LINES = 3  # new problems listed per file under a diff (the TUI's resting block)


def diagnostics_text(details: dict[str, Any]) -> Text:
    """The first new problems the language servers found in an edited file (their counts were
    printed by the ``lsp_diagnostics`` event), each with the line it points at."""
    report = details.get("diagnostics")
    files = report.get("files") if isinstance(report, dict) else None
    out = Text()
    for item in files if isinstance(files, list) else []:
        listed = item.get("new") if isinstance(item, dict) else None
        if not isinstance(listed, list):
            continue
        shown = [d for d in listed if isinstance(d, dict)][:DIAGNOSTIC_LINES]
        for found in shown:
            severity = str(found.get("severity", ""))
            code = f" [{found['code']}]" if found.get("code") else ""
            first = str(found.get("message", "")).split("\n", 1)[0]
            where = f"{item.get('path')}:{found.get('line')}:{found.get('column')}"
            style = "red" if severity == "error" else "yellow"
            out.append("\n  " + _cut(safe(f"{where}: {severity}: {first}{code}")), style=style)
            if context := str(found.get("context") or ""):
                out.append("\n      " + _cut(safe(context)), style="dim")
        total = item.get("newCount")
        more = max(total if isinstance(total, int) else 0, len(listed)) - len(shown)
        if more > 0:
            out.append(f"\n  … {more} more", style="dim")
    return out


class _FileProblems(Protocol):  # the shell's FileDiagnostics, as far as a line needs it
    new_errors: int
    new_count: int

    def summary(self) -> str: ...


def diagnostics_summary(files: Sequence[_FileProblems]) -> list[Text]:
    """A line per file a call changed whose problems changed (``python: 1 new error in a.py``),
    printed before its result (the ``lsp_diagnostics`` event)."""
    lines = []
    for item in files:
        if line := item.summary():
            style = "bold red" if item.new_errors else "yellow" if item.new_count else "green"
            lines.append(Text("  " + safe(line), style=style))
    return lines


def print_unpadded(console: Console, renderable: RenderableType) -> None:
    """Print ``renderable`` without the spaces rich pads its lines with: the terminal's own
    scrollback then copies, searches and re-wraps the text as it was written."""
    for line in console.render_lines(renderable, console.options, pad=False):
        while line and not line[-1].control and not line[-1].text.strip():
            style = line[-1].style
            if style is not None and style.bgcolor is not None:
                break  # a code block's background: part of what is drawn
            line.pop()
        if line and line[-1].text != line[-1].text.rstrip(" "):
            last = line[-1]
            if last.style is None or last.style.bgcolor is None:
                line[-1] = Segment(last.text.rstrip(" "), last.style, last.control)
        console.print(Segments([*line, Segment.line()]))
