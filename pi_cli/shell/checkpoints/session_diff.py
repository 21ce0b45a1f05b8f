"""What this session changed, from its checkpoints (``/diff``, ``pi diff``), and reverting one
file of it (the restore path of ``/rewind``: a ``restore`` snapshot first, so ``/rewind undo``
puts it back).

The total is the session's first snapshot against the files now; per prompt, the code at each
prompt against the code at the next (the last one against the files now). Bash's changes are
in them like the edit tools': snapshots see the files, not the tools.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pi_cli.shell.checkpoints.git import GitError, ShadowGit
from pi_cli.shell.checkpoints.restore import Restored, restore_tree
from pi_cli.shell.checkpoints.rewind import RewindError, Snapshots, rewind_points
from pi_cli.shell.checkpoints.snapshot import Snapshot, changed_paths
from pi_cli.shell.checkpoints.timeline import Timeline
from pi_cli.shell.session.store import SessionStore

MAX_PATCH_BYTES = 32 * 1024 * 1024


@dataclass
class DiffSegment:
    """The changes between two snapshots: the session's total or one prompt's."""

    label: str
    old_tree: str
    new_tree: str
    patch: str = ""
    entry_id: str | None = None
    truncated: bool = False


@dataclass
class SessionDiff:
    """The session's changes: the total first, then each prompt's (when asked for)."""

    total: DiffSegment | None
    turns: list[DiffSegment] = field(default_factory=list)
    problem: str | None = None


def patch(git: ShadowGit, old: str, new: str) -> tuple[str, bool]:
    """``git diff`` between two snapshot trees (renames found, no external tools); (text, cut)."""
    if old == new:
        return "", False
    out = git.run(
        "-c", "core.quotePath=true", "diff", "--no-color", "--no-ext-diff", "--no-textconv",
        "-M", "-p", old, new, "--",
    )  # fmt: skip
    cut = len(out) > MAX_PATCH_BYTES
    return out[:MAX_PATCH_BYTES].decode("utf-8", "replace"), cut


async def session_diff(session: SessionStore, snaps: Snapshots, per_turn: bool) -> SessionDiff:
    """The session's changes (a snapshot of the files is taken now)."""
    if snaps.off is not None:
        return SessionDiff(None, problem=snaps.off)
    await snaps.settle()
    timeline = Timeline(session)
    if not timeline.checkpoints:
        return SessionDiff(None, problem="No snapshot yet: nothing was changed in this session.")
    current: Snapshot = await snaps.run(snaps.snapshot_now, session.session_id)
    first = timeline.checkpoints[0].tree
    result = SessionDiff(DiffSegment("everything this session changed", first, current.tree))
    segments = [result.total] if result.total else []
    if per_turn:
        points = [p for p in await rewind_points(session, snaps) if p.has_code]
        trees = [cp.tree if (cp := timeline.code_at(p.entry_id)) else first for p in points]
        ends = [*trees[1:], current.tree]
        for number, (point, old, new) in enumerate(zip(points, trees, ends, strict=True), 1):
            if old != new:
                label = f"prompt {number}: {point.text}"
                result.turns.append(DiffSegment(label, old, new, entry_id=point.entry_id))
        segments += result.turns
    try:
        for segment in segments:
            segment.patch, segment.truncated = await snaps.run(
                patch, snaps.git, segment.old_tree, segment.new_tree
            )
    except GitError as exc:
        result.problem = f"The snapshots cannot be read: {exc}"
    return result


async def revert_file(
    session: SessionStore, snaps: Snapshots, paths: set[str], to_tree: str
) -> Restored:
    """Put ``paths`` (a file, or a renamed file's two names) back as they are in ``to_tree``
    (deleting what was created since), leaving every other file alone; ``/rewind undo``
    undoes it."""
    if snaps.off is not None:
        raise RewindError(snaps.off)
    await snaps.settle()
    now: Snapshot = await snaps.run(snaps.snapshot_now, session.session_id)
    changed = await snaps.run(changed_paths, snaps.git, now.tree, to_tree)
    if not paths & changed:
        raise RewindError(f"{', '.join(sorted(paths))}: already as it was")
    leaf = session.leaf_id or ""
    snaps.record(session, now, "restore", target=leaf, code=True, conversation=False)
    keep = frozenset(changed - paths)
    report: Restored = await snaps.run(restore_tree, snaps.git, now.tree, to_tree, keep)
    after = await snaps.run(snaps.snapshot_now, session.session_id)
    snaps.record(session, after, "restored", target=leaf)
    return report
