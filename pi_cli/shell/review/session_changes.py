"""``/diff`` and ``pi diff``: what this session changed (from its checkpoints), as a patch, as
JSON, or file by file for the TUI's diff screen; ``/diff revert PATH`` puts one file back as
it was when the session started (``/rewind undo`` undoes it).

    /diff [--turns] [--json]       everything the session changed (--turns: prompt by prompt)
    /diff revert PATH              put PATH back as it was at the session's start
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pi_cli.shell.checkpoints.rewind import RewindError
from pi_cli.shell.checkpoints.session_diff import (
    DiffSegment,
    SessionDiff,
    revert_file,
    session_diff,
)
from pi_cli.shell.commands import CommandResult, split_args
from pi_cli.shell.review.hunks import DiffFile, parse_diff

if TYPE_CHECKING:
    from pi_cli.shell.checkpoints.rewind import Snapshots
    from pi_cli.shell.commands import ShellAPI
    from pi_cli.shell.session.store import SessionStore

DIFF_USAGE = "[--turns] [--json] | revert PATH"


@dataclass
class ChangeSet:
    """One segment's files, parsed (what the diff screen shows)."""

    label: str
    old_tree: str
    files: list[DiffFile]
    truncated: bool = False


def change_sets(result: SessionDiff) -> list[ChangeSet]:
    """The total, then each prompt's changes, as parsed files."""
    segments: list[DiffSegment] = [result.total] if result.total else []
    segments += result.turns
    return [ChangeSet(s.label, s.old_tree, parse_diff(s.patch), s.truncated) for s in segments]


async def session_changes(session: SessionStore, snaps: Snapshots, per_turn: bool) -> SessionDiff:
    """The session's changes (see :func:`pi_cli.shell.checkpoints.session_diff.session_diff`)."""
    return await session_diff(session, snaps, per_turn)


def diff_text(sets: list[ChangeSet]) -> str:
    """The changes as text: a heading per segment, a summary line per file, the patch."""
    out: list[str] = []
    for change in sets:
        adds = sum(f.additions for f in change.files)
        dels = sum(f.deletions for f in change.files)
        out.append(f"── {change.label}: {len(change.files)} file(s) +{adds} -{dels}")
        if not change.files:
            out.append("(no changes)")
        for file in change.files:
            out.append(file.text().rstrip("\n"))
        if change.truncated:
            out.append("(the patch is cut at 32 MB)")
        out.append("")
    return "\n".join(out).rstrip("\n")


def diff_json(sets: list[ChangeSet]) -> dict[str, Any]:
    """The changes for scripts (camelCase; the total first, then each prompt's)."""
    return {
        "segments": [
            {
                "label": change.label,
                "fromTree": change.old_tree,
                "truncated": change.truncated,
                "files": [
                    {
                        "path": f.path,
                        "oldPath": f.old_path,
                        "status": f.status,
                        "binary": f.binary,
                        "additions": f.additions,
                        "deletions": f.deletions,
                        "patch": f.text(),
                    }
                    for f in change.files
                ],
            }
            for change in sets
        ]
    }


def change_sets_of_json(data: dict[str, Any]) -> list[ChangeSet]:
    """:func:`diff_json`'s output read back (``/diff --turns --json`` run by a session that
    lives elsewhere, e.g. in ``pi serve``): each file's patch parsed again."""
    return [
        ChangeSet(
            str(segment.get("label", "")),
            str(segment.get("fromTree", "")),
            parse_diff("".join(str(f.get("patch", "")) for f in segment.get("files", []))),
            bool(segment.get("truncated")),
        )
        for segment in data.get("segments", [])
    ]


async def revert_session_file(session: SessionStore, snaps: Snapshots, path: str) -> str:
    """Put ``path`` back as it was at the session's start; what was done, in words."""
    result = await session_diff(session, snaps, per_turn=False)
    if result.problem or result.total is None:
        raise RewindError(result.problem or "Nothing changed in this session.")
    file = next((f for f in parse_diff(result.total.patch) if path in (f.path, f.old_path)), None)
    if file is None:
        raise RewindError(f"{path} was not changed in this session")
    names = {file.path, *([file.old_path] if file.old_path else [])}
    report = await revert_file(session, snaps, names, result.total.old_tree)
    if report.failed:
        raise RewindError("Could not restore: " + "; ".join(report.failed[:5]))
    verb = "Removed" if file.status == "added" else "Restored"
    return f"{verb} {file.path} as it was when the session started (/rewind undo puts it back)."


async def diff_command(shell: ShellAPI, args: str) -> CommandResult:
    """``/diff``: the session's changes (the TUI opens its diff screen)."""
    words = split_args(args)
    try:
        if words[:1] == ["revert"]:
            if len(words) != 2:
                return CommandResult(output=f"Usage: /diff {DIFF_USAGE}", error=True)
            text = await revert_session_file(shell.session, shell.checkpoints, words[1])
            return CommandResult(output=text)
        unknown = [w for w in words if w not in ("--turns", "--json")]
        if unknown:
            return CommandResult(output=f"Usage: /diff {DIFF_USAGE}", error=True)
        result = await session_diff(shell.session, shell.checkpoints, "--turns" in words)
    except RewindError as exc:
        return CommandResult(output=str(exc), error=True)
    if result.problem:
        return CommandResult(output=result.problem, error=result.total is not None)
    sets = change_sets(result)
    if "--json" in words:
        return CommandResult(output=json.dumps(diff_json(sets), ensure_ascii=False))
    return CommandResult(output=diff_text(sets), action="pick_diff")
