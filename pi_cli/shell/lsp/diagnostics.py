"""Diagnostics a change introduced: compared with what was there before, worded for the model.

A problem is identified by its severity, code, message and the text of the line it points at
(not the line number: an edit above it moves it). Per file pi remembers the problems the model
already knows of (there before it touched the file, or reported in an earlier result): only
the others are new. Errors and warnings only; hints and information are left out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pi_cli.shell.events.lsp import Diagnostic, DiagnosticsReported, FileDiagnostics
from pi_cli.shell.lsp.positions import number, to_column

Key = tuple[str, str, str, str]
SEVERITIES = {1: "error", 2: "warning", 3: "info", 4: "hint"}
MESSAGE_CHARS = 400
CONTEXT_CHARS = 160


def convert(
    items: Iterable[dict[str, Any]], path: Path, shown: str, text: str, encoding: str
) -> list[Diagnostic]:
    """The errors and warnings among a server's raw diagnostics, errors first, by position."""
    lines = text.split("\n")
    found: list[Diagnostic] = []
    for item in items:
        severity = SEVERITIES.get(item.get("severity") or 1, "error")
        if severity not in ("error", "warning"):
            continue
        start = (item.get("range") or {}).get("start") or {}
        line, character = number(start.get("line")), number(start.get("character"))
        source_line = lines[line] if 0 <= line < len(lines) else ""
        code = item.get("code")
        found.append(
            Diagnostic(
                path=shown,
                line=line + 1,
                column=to_column(source_line, character, encoding) + 1,
                severity=severity,  # type: ignore[arg-type]
                message=_clip(str(item.get("message") or ""), MESSAGE_CHARS),
                source=str(item["source"]) if item.get("source") else None,
                code=str(code) if code is not None and code != "" else None,
                context=_clip(source_line.strip(), CONTEXT_CHARS),
            )
        )
    found.sort(key=lambda d: (d.severity != "error", d.line, d.column))
    return found


def key(diagnostic: Diagnostic) -> Key:
    """What identifies a problem across edits."""
    return (diagnostic.severity, diagnostic.code or "", diagnostic.message, diagnostic.context)


def compare(
    now: list[Diagnostic], known: Counter[Key] | None, server: str, shown: str
) -> FileDiagnostics:
    """``now`` against the problems already ``known`` (None: nothing known, all are new)."""
    remaining = Counter(known or {})
    new: list[Diagnostic] = []
    present = 0
    for diagnostic in now:
        k = key(diagnostic)
        if remaining[k] > 0:
            remaining[k] -= 1
            present += 1
        else:
            new.append(diagnostic)
    return FileDiagnostics(
        path=shown,
        server=server,
        new=new,
        new_count=len(new),
        new_errors=sum(d.severity == "error" for d in new),
        present=present,
        fixed=sum(remaining.values()),
        errors=sum(d.severity == "error" for d in now),
        warnings=sum(d.severity == "warning" for d in now),
        baseline=known is not None,
    )


def cap(files: list[FileDiagnostics], limit: int) -> list[FileDiagnostics]:
    """At most ``limit`` new problems listed over all files (``new_count`` keeps the total)."""
    left = limit
    capped = []
    for item in files:
        shown = item.new[: max(0, left)]
        left -= len(shown)
        capped.append(item.model_copy(update={"new": shown}))
    return capped


def worded(report: DiagnosticsReported, starting: list[str]) -> str:
    """The text appended to the tool result ("" when there is nothing to say)."""
    parts: list[str] = []
    for item in report.files:
        if item.new_count == 0 and item.fixed == 0:
            continue
        parts.append(_file_text(item))
    for name in starting:
        parts.append(
            f"(Diagnostics not checked: the {name} language server is still starting; "
            "they come with a later edit.)"
        )
    return "\n".join(parts)


def _file_text(item: FileDiagnostics) -> str:
    counts = _counts(item.new_errors, item.new_count - item.new_errors)
    head = f"Language server ({item.server}) on {item.path}: "
    if item.new_count == 0:
        fixed = _plural(item.fixed, "problem")
        return head + f"no new problems; {fixed} reported before {_is(item.fixed)} gone."
    what = counts if item.baseline else f"{counts} (the file's problems: none known before)"
    lines = [head + f"{what} after this change:"]
    for diagnostic in item.new:
        code = f" [{diagnostic.code}]" if diagnostic.code else ""
        message = " — ".join(
            part.strip() for part in diagnostic.message.splitlines() if part.strip()
        )
        lines.append(
            f"  {diagnostic.path}:{diagnostic.line}:{diagnostic.column}: "
            f"{diagnostic.severity}: {message}{code}"
        )
        if diagnostic.context:
            lines.append(f"      {diagnostic.context}")
    hidden = item.new_count - len(item.new)
    if hidden > 0:
        lines.append(f"  … and {_plural(hidden, 'more problem')} (capped: lsp.maxDiagnostics)")
    notes = []
    if item.present:
        notes.append(f"{_plural(item.present, 'problem')} already there before not listed")
    if item.fixed:
        notes.append(f"{item.fixed} reported before {_is(item.fixed)} gone")
    if notes:
        lines.append(f"  ({'; '.join(notes)}.)")
    return "\n".join(lines)


def _counts(errors: int, warnings: int) -> str:
    parts = [_plural(errors, "new error")] if errors else []
    parts += [_plural(warnings, "new warning")] if warnings else []
    return " and ".join(parts) or "new problems"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _is(count: int) -> str:
    return "is" if count == 1 else "are"


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"
