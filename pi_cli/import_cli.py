"""``pi import FILE``: a Claude Code, Codex or TypeScript pi transcript as a pi session."""

from __future__ import annotations

from pathlib import Path


def accepts(argv: list[str]) -> bool:
    """One argument naming an existing file (``pi import the module`` stays a prompt)."""
    return len(argv) == 1 and Path(argv[0]).expanduser().is_file()


def run(argv: list[str]) -> int:
    """Import it; 0, or 1 with the reason on stderr."""
    from pi_cli.shell import TranscriptImportError, import_words, say

    try:
        lines = import_words(argv, Path.cwd())
    except TranscriptImportError as exc:
        say(f"pi import: {exc}", err=True)
        return 1
    for line in lines:
        say(line)
    return 0
