"""Path handling shared by the tools: resolution against the working directory, display.

Writing and reading a call's file is :mod:`tools.safe_files`."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

# Unicode spaces models (and macOS screenshot names) use where a plain space is meant.
_ODD_SPACES = dict.fromkeys(map(ord, "\u00a0\u2007\u202f\u2000\u2001\u2002\u2003\u2009\u200a"), " ")


def resolve_path(cwd: str | Path, path: str) -> Path:
    """Resolve ``path`` relative to ``cwd``; absolute paths and a leading ``~`` are honoured.

    A leading ``@`` (a common model habit from mention syntax) is dropped. When the literal path
    does not exist, Unicode variants are tried (NFC/NFD forms, odd spaces such as the narrow
    no-break space in macOS screenshot names) so a model's retyped name still finds the file.
    """
    text = path.strip()
    if text.startswith("@"):
        text = text[1:]
    if text.startswith("~"):
        text = os.path.expanduser(text)
    candidate = Path(text)
    if not candidate.is_absolute():
        candidate = Path(cwd) / candidate
    if candidate.exists() or not text:
        return candidate
    for variant in _variants(str(candidate)):
        if os.path.exists(variant):
            return Path(variant)
    return candidate


def _variants(path: str) -> list[str]:
    forms = [unicodedata.normalize("NFC", path), unicodedata.normalize("NFD", path)]
    plain = path.translate(_ODD_SPACES)
    forms.append(plain)
    # macOS writes "10.00.00\u202fAM"; a model usually types a plain space there.
    forms.append(plain.replace(" AM.", "\u202fAM.").replace(" PM.", "\u202fPM."))
    return [form for form in forms if form != path]


def search_target(cwd: str | Path, path: str | None, *, directory: bool) -> tuple[Path, str]:
    """The path grep/find/ls work on (default: ``cwd``) and how to show it.

    Raises:
        ToolError: the path does not exist, or is not a directory when ``directory`` is set.
    """
    from agent_core import ToolError

    target = resolve_path(cwd, path) if path else Path(cwd)
    shown = display_path(cwd, target)
    if not target.exists():
        raise ToolError(f"Path not found: {shown}")
    if directory and not target.is_dir():
        raise ToolError(f"Not a directory: {shown}")
    return target, shown


def display_path(cwd: str | Path, path: Path) -> str:
    """``path`` relative to ``cwd`` when it lies inside it, else absolute (for messages)."""
    try:
        relative = path.relative_to(Path(cwd))
    except ValueError:
        return str(path)
    return str(relative) or "."
