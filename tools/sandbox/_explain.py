"""Why a path failed inside the sandbox, read from its mount table (see :mod:`tools.sandbox._bwrap`).

A command that fails on a path the sandbox hides, keeps private or protects reports only what
the kernel said ("No such file or directory" for an existing host directory under ``/var/tmp``),
and a model concludes the directory does not exist. For each path named on a failing line, the
mount that decides it inside is found the way the kernel does (the innermost one; of two on one
path, the later), and the result says what it is: the sandbox's own private ``/tmp``,
``/var/tmp`` or ``/run``; a hidden credential or pi's own directory; a protected path (read-only:
it configures programs that run outside the sandbox).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from tools.sandbox._bwrap import PRIVATE, Layout

# Pattern texts, compiled (and cached by ``re``) at the first failed command: compiling them
# when bash loads cost every start ~1 ms.
_FAILED = (
    r"(?i)no such file or directory|read-only file system|permission denied|"
    r"operation not permitted|device or resource busy|\bENOENT\b|\bEROFS\b|\bEACCES\b|"
    r"\bEPERM\b|\bEBUSY\b"
)
_ABSOLUTE = r"(?<![\w.])(/[^\s:'\"`,;()‘’]+)"
_QUOTED = r"[‘'\"`]([^‘’'\"`\n]+)[’'\"`]"
LIMIT = 3


def _mounts(layout: Layout, writable: list[Path]) -> list[tuple[Path, str]]:
    """(path, what it is inside), in mount order."""
    found: list[tuple[Path, str]] = [(Path(p), "private") for p in PRIVATE]
    found += [(p, "writable") for p in writable]
    found += [(p, "writable" if kind == "bind" else "protected") for kind, p in layout.git]
    found += [(p, "hidden") for p in layout.hidden]
    found += [(p, "protected") for p in layout.protected]
    return found


def _deciding(path: Path, mounts: list[tuple[Path, str]]) -> tuple[Path, str] | None:
    best: tuple[Path, str] | None = None
    for root, kind in mounts:
        if path == root or path.is_relative_to(root):
            if best is None or len(root.parts) >= len(best[0].parts):
                best = (root, kind)
    return best


def explain(path: Path, layout: Layout, writable: list[Path]) -> str | None:
    """What the sandbox does to ``path`` that a failure there may come from, or None."""
    found = _deciding(path, _mounts(layout, writable))
    if found is None:
        return None
    root, kind = found
    if kind == "private":
        there = path if os.path.lexists(path) else path.parent
        if there == root or not os.path.lexists(there):
            return None  # not on the host either: a real "not found"
        return (
            f"{there} exists outside the sandbox, but inside it {root} is the sandbox's own "
            f"private, empty directory: the host's {root} cannot be seen or written from here"
        )
    if kind == "hidden":
        return (
            f"{root} is hidden inside the sandbox (credentials or pi's own files): {path} "
            "cannot be seen or written from here, though it may exist"
        )
    if kind == "protected":
        return (
            f"{root} is protected: read-only inside the sandbox, because it configures "
            "programs that run outside it (git's hooks and config, editor and agent settings)"
        )
    if root == path:  # a writable mount point: its contents change, the entry stays
        return (
            f"{path} is fixed in place inside the sandbox (a mount point): what is in it can "
            "change, but it cannot be renamed, replaced or removed"
        )
    return None


def paths_named(line: str, cwd: Path) -> list[Path]:
    """The paths a failing line names: absolute ones, quoted ones and ``name: error`` ones
    (relative ones against ``cwd``)."""
    found = [Path(p) for p in re.findall(_ABSOLUTE, line)]
    words = [q.strip() for q in re.findall(_QUOTED, line)]
    words += [part.strip() for part in line.split(": ") if "/" in part or part.startswith(".")]
    for text in words:
        if text and not text.startswith("/") and " " not in text:
            found.append(Path(os.path.normpath(cwd / text)))
    return found


def failed_paths_explained(output: str, layout: Layout, writable: list[Path]) -> list[str]:
    """What the sandbox did to the paths of the failing lines of ``output`` (at most three)."""
    cwd = layout.workspace
    reasons: list[str] = []
    for line in output.splitlines():
        if not re.search(_FAILED, line):
            continue
        for path in paths_named(line, cwd):
            why = explain(path, layout, writable)
            if why is not None and why not in reasons:
                reasons.append(why)
            if len(reasons) >= LIMIT:
                return reasons
    return reasons
