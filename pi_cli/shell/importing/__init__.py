"""``pi import FILE``: another agent's transcript as a pi session that resumes with its tool
calls and results intact (see docs/sessions.md, "Importing").

Formats, recognised by their lines: a Claude Code transcript (``~/.claude/projects/*/*.jsonl``,
:mod:`._claude`), a Codex CLI rollout (``~/.codex/sessions/**/rollout-*.jsonl``, :mod:`._codex`)
and a TypeScript pi session (``~/.pi/agent/sessions/**.jsonl``: read by pi's own session reader,
its path to the leaf, compactions and bash messages as pi reads them). What cannot be mapped is
kept as text in the conversation and named in the report (a Codex ``apply_patch``, a Claude Code
server tool block); lines that are no conversation (snapshots, screen events) are counted. A
tool call the transcript never answered gets a result saying so, so the session can go on.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_core import AssistantMessage, Message, ToolCall, ToolResultMessage

MAX_BYTES = 512 * 1024 * 1024
"""Transcripts larger than this are refused."""


class TranscriptImportError(ValueError):
    """A transcript that cannot be imported (the message says why)."""


@dataclass
class Imported:
    """What was read: the format, the messages, and what was counted on the way."""

    format: str
    messages: list[Message]
    cwd: str | None
    kept_as_text: Counter[str] = field(default_factory=Counter)
    skipped: Counter[str] = field(default_factory=Counter)
    damaged: int = 0

    @property
    def tool_calls(self) -> int:
        """Tool calls with their results."""
        return sum(
            isinstance(b, ToolCall)
            for m in self.messages
            if isinstance(m, AssistantMessage)
            for b in m.content
        )


def _lines(path: Path) -> tuple[list[dict[str, Any]], int]:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise TranscriptImportError(f"cannot read {path}: {exc.strerror or exc}") from None
    if size > MAX_BYTES:
        raise TranscriptImportError(f"{path} is larger than {MAX_BYTES // (1024 * 1024)} MiB")
    lines: list[dict[str, Any]] = []
    damaged = 0
    with path.open("rb") as handle:
        for raw in handle:
            if not raw.strip():
                continue
            try:
                value = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                damaged += 1
                continue
            if isinstance(value, dict):
                lines.append(value)
            else:
                damaged += 1
    return lines, damaged


def detect(lines: list[dict[str, Any]]) -> str | None:
    """``claude``, ``codex``, ``pi`` or None, from the first lines."""
    for line in lines[:50]:
        kind = line.get("type")
        if kind == "session" and "version" in line:
            return "pi"
        if kind in ("session_meta", "response_item", "turn_context"):
            return "codex"
        if kind in ("user", "assistant") and isinstance(line.get("message"), dict):
            return "claude"
    return None


def read_transcript(path: Path) -> Imported:
    """Read ``path`` in whichever format it is (raises :class:`TranscriptImportError`)."""
    lines, damaged = _lines(path)
    kind = detect(lines)
    if kind == "pi":
        return _pi_session(path, damaged)
    if kind == "claude":
        from pi_cli.shell.importing._claude import import_claude

        build, cwd = import_claude(lines)
    elif kind == "codex":
        from pi_cli.shell.importing._codex import import_codex

        build, cwd = import_codex(lines)
    else:
        raise TranscriptImportError(
            f"{path} is neither a Claude Code transcript, a Codex rollout nor a pi session"
        )
    messages = build.finish()
    if not messages:
        raise TranscriptImportError(f"{path} holds no conversation")
    label = "Claude Code transcript" if kind == "claude" else "Codex rollout"
    return Imported(label, messages, cwd, build.kept_as_text, build.skipped, damaged)


def _pi_session(path: Path, damaged: int) -> Imported:
    from pi_cli.shell.session.store import SessionError, SessionStore

    try:
        store = SessionStore.open(path, persist=False)
    except SessionError as exc:
        raise TranscriptImportError(str(exc)) from None
    messages = store.build_context()
    if not messages:
        raise TranscriptImportError(f"{path} holds no conversation")
    imported = Imported("TypeScript pi session", messages, store.header.cwd, damaged=damaged)
    for warning in store.warnings:
        if "written by a newer pi" not in warning:  # the TypeScript pi's own version: expected
            imported.skipped[warning[:200]] += 1
    return imported


def write_session(imported: Imported, cwd: Path) -> Path:
    """The messages as a new pi session of ``cwd``; its file."""
    from pi_cli.shell.session.store import SessionStore

    store = SessionStore.create(cwd)
    for message in imported.messages:
        store.append_message(message)
    if store.path is None or store.write_error:
        raise TranscriptImportError(store.write_error or "the session could not be written")
    return store.path


def report(imported: Imported, source: Path, written: Path) -> list[str]:
    """What ``pi import`` says."""
    results = sum(isinstance(m, ToolResultMessage) for m in imported.messages)
    lines = [
        f"Imported {len(imported.messages)} messages ({imported.tool_calls} tool calls, "
        f"{results} results) from the {imported.format} {source}",
        f"into {written}",
        f"Resume it: pi --session {written}",
    ]
    if imported.cwd:
        lines.append(f"It was recorded in {imported.cwd}.")
    for what, count in sorted(imported.kept_as_text.items()):
        lines.append(f"  kept as text: {count} × {what}")
    for what, count in sorted(imported.skipped.items()):
        lines.append(f"  left out: {count} × {what}")
    if imported.damaged:
        lines.append(f"  left out: {imported.damaged} unreadable line(s)")
    return lines


def import_words(words: list[str], cwd: Path) -> list[str]:
    """``pi import FILE``: read, write, report (raises :class:`TranscriptImportError`)."""
    source = Path(words[0]).expanduser()
    source = source if source.is_absolute() else cwd / source
    imported = read_transcript(source)
    written = write_session(imported, cwd)
    return report(imported, source, written)
