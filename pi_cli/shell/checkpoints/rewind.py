"""Rewinding: the code, the conversation, or both, back to an entry of the session.

Every rewind first records the state it leaves as a ``restore`` snapshot under the current
leaf, so it can be undone (:func:`undo_rewind` rewinds to that snapshot); then it restores the
files (created since: removed; ignored or oversized files: untouched), moves the leaf (a prompt
goes back to the editor, as with ``/tree``), optionally with a branch summary, and records a
``restored`` snapshot at the new position (which also keeps that position on the next start).
Files changed by hand after the point would be overwritten: they are named, and the caller
must say ``overwrite=True`` (or ``False`` to keep them as they are).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from agent_core import AbortSignal
from pi_cli.shell.checkpoints.git import ShadowGit
from pi_cli.shell.checkpoints.restore import Restored, restore_tree
from pi_cli.shell.checkpoints.snapshot import (
    FileStat,
    Snapshot,
    changed_paths,
    name_status,
    numstats,
)
from pi_cli.shell.checkpoints.timeline import Checkpoint, Timeline
from pi_cli.shell.session.store import SessionError, SessionStore
from pi_cli.shell.session.tree import one_line, text_of

if TYPE_CHECKING:
    from collections.abc import Callable

    from pi_cli.shell.context import ShellContext


class RewindError(SessionError):
    """A rewind cannot be done (the message says why)."""


class Snapshots(Protocol):
    """What a rewind uses of the checkpoint part."""

    @property
    def git(self) -> ShadowGit: ...
    @property
    def off(self) -> str | None: ...
    async def run(self, work: Callable[..., Any], *args: Any) -> Any: ...
    def snapshot_now(self, session_id: str) -> Snapshot: ...
    def record(self, store: SessionStore, snap: Snapshot, kind: str, **extra: Any) -> str: ...
    async def settle(self, timeout: float | None = None) -> None: ...


@dataclass
class RewindPoint:
    """One prompt of the current branch, with what changed in the files after it."""

    entry_id: str
    text: str
    timestamp: str
    files: list[FileStat] = field(default_factory=list)
    has_code: bool = False

    @property
    def added(self) -> int:
        return sum(max(f.added, 0) for f in self.files)

    @property
    def removed(self) -> int:
        return sum(max(f.removed, 0) for f in self.files)

    def changes(self) -> str:
        """``2 files +10 -3``, ``no file changes`` or ``no snapshot``."""
        if not self.has_code:
            return "no snapshot"
        if not self.files:
            return "no file changes"
        count = len(self.files)
        return f"{count} file{'s' if count != 1 else ''} +{self.added} -{self.removed}"


@dataclass
class RewindPlan:
    """What rewinding the code to ``entry_id`` would do (``problem``: why it cannot)."""

    entry_id: str
    target: Checkpoint | None = None
    current: Snapshot | None = None
    changes: list[tuple[str, str]] = field(default_factory=list)  # (status now -> then, path)
    by_hand: list[str] = field(default_factory=list)
    problem: str | None = None
    leaves_branch: bool = False  # moving there leaves entries behind (a branch to summarise)

    def lines(self) -> list[str]:
        """The plan in words, one line per file."""
        if self.problem:
            return [self.problem]
        if not self.changes:
            return ["The files are already as they were then."]
        words = {"A": "restore (deleted since)", "D": "remove (created since)"}
        hand = set(self.by_hand)
        return [
            f"{words.get(status, 'restore')}: {path}"
            + ("  [changed by hand]" if path in hand else "")
            for status, path in self.changes
        ]


class NeedsConfirmation(RewindError):  # a question, not a failure
    """Files changed by hand since the point would be overwritten: say ``overwrite``."""

    def __init__(self, plan: RewindPlan) -> None:
        names = ", ".join(plan.by_hand[:8]) + (" …" if len(plan.by_hand) > 8 else "")
        super().__init__(
            f"{len(plan.by_hand)} file(s) changed by hand since then would be overwritten: "
            f"{names}. Confirm to overwrite them, or keep them as they are."
        )
        self.plan = plan


@dataclass
class RewindResult:
    """What a rewind did."""

    entry_id: str
    text: str | None = None  # a prompt rewound to, for the editor
    plan: RewindPlan | None = None
    restored: Restored | None = None
    undo_id: str | None = None  # the ``restore`` snapshot that undoes this rewind
    moved: bool = False


def _user_text(session: SessionStore, entry_id: str) -> str | None:
    data = session.read_entry(entry_id) or {}
    message = data.get("message") if data.get("type") == "message" else None
    if isinstance(message, dict) and message.get("role") == "user":
        return text_of(message.get("content"))
    return None


async def rewind_points(session: SessionStore, snaps: Snapshots) -> list[RewindPoint]:
    """The prompts of the current branch, oldest first, each with the changes made after it
    (up to the next prompt; for the last one, up to the files as they are now)."""
    points = []
    for ref in session.path_to():
        if ref.type == "message":
            text = _user_text(session, ref.id)
            if text is not None and text.strip():
                data = session.read_entry(ref.id) or {}
                points.append(RewindPoint(ref.id, one_line(text), str(data.get("timestamp", ""))))
    if snaps.off is not None or not points:
        return points
    timeline = Timeline(session)
    trees = [cp.tree if (cp := timeline.code_at(p.entry_id)) else None for p in points]
    current: Snapshot = await snaps.run(snaps.snapshot_now, session.session_id)
    ends = [*trees[1:], current.tree]
    pairs = [(a, b or current.tree) for a, b in zip(trees, ends, strict=True) if a]
    stats = iter(await snaps.run(numstats, snaps.git, pairs))
    for point, tree in zip(points, trees, strict=True):
        if tree is not None:
            point.has_code, point.files = True, next(stats)
    return points


async def plan_rewind(session: SessionStore, snaps: Snapshots, entry_id: str) -> RewindPlan:
    """What rewinding the code to ``entry_id`` would change, and which of those files were
    changed by hand after it (takes a snapshot of the files now)."""
    from pi_cli.shell.compaction.branch_summary import abandoned

    plan = RewindPlan(entry_id)
    plan.leaves_branch = bool(abandoned(session, session.leaf_id, entry_id))
    if snaps.off is not None:
        plan.problem = snaps.off
        return plan
    timeline = Timeline(session)
    plan.target = timeline.code_at(entry_id)
    if plan.target is None:
        plan.problem = "There is no snapshot of the code at that point (checkpoints were off)."
        return plan
    plan.current = await snaps.run(snaps.snapshot_now, session.session_id)
    if not await snaps.run(snaps.git.has_object, plan.target.tree):
        plan.problem = "That snapshot was pruned (checkpoints.keepDays / maxRepoMb)."
        return plan
    git, target, now = snaps.git, plan.target.tree, plan.current.tree
    plan.changes = await snaps.run(name_status, git, now, target)
    touched = {path for _, path in plan.changes}
    by_hand: set[str] = set()
    for old, new in timeline.by_hand_pairs(plan.target, now):
        by_hand |= await snaps.run(changed_paths, git, old, new) & touched
    plan.by_hand = sorted(by_hand)
    return plan


def _new_leaf(session: SessionStore, entry_id: str) -> tuple[str | None, str | None]:
    """(where the leaf goes, a prompt's text for the editor), as ``/tree`` moves."""
    text = _user_text(session, entry_id)
    if text is not None:
        return session.entries[entry_id].parent_id, text
    return entry_id, None


async def _checked_plan(
    session: SessionStore, snaps: Snapshots, entry_id: str, overwrite: bool | None
) -> RewindPlan:
    """The code's plan, or why not: a problem, or files changed by hand to confirm first."""
    plan = await plan_rewind(session, snaps, entry_id)
    if plan.problem:
        raise RewindError(plan.problem)
    if plan.by_hand and overwrite is None:
        raise NeedsConfirmation(plan)
    return plan


async def rewind(
    shell: ShellContext,
    snaps: Snapshots,
    entry_id: str,
    *,
    code: bool = True,
    conversation: bool = True,
    overwrite: bool | None = None,
    summarize: bool = False,
) -> RewindResult:
    """Rewind code and/or conversation to ``entry_id`` (see the module docstring).

    Raises :class:`NeedsConfirmation` when files changed by hand would be overwritten and
    ``overwrite`` is None, :class:`RewindError` when it cannot be done.
    """
    shell.ensure_idle("rewind")
    await snaps.settle()
    session = shell.session
    if entry_id not in session.entries:
        raise RewindError(f"No entry {entry_id} in this session")
    result = RewindResult(entry_id)
    if code:
        result.plan = await _checked_plan(session, snaps, entry_id, overwrite)
    summary = None
    if conversation and summarize:
        from pi_cli.shell.compaction.branch_summary import summarize_branch

        summary = await summarize_branch(shell, session.leaf_id, entry_id, AbortSignal())
    if not conversation and not (result.plan and result.plan.changes):
        return result  # nothing would change
    now = result.plan.current if result.plan and result.plan.current else None
    if snaps.off is None:  # checkpoints off: only the conversation moves, git is never run
        now = now or await snaps.run(snaps.snapshot_now, session.session_id)
        result.undo_id = snaps.record(
            session, now, "restore", target=entry_id, code=code, conversation=conversation
        )
    if now is not None and result.plan and result.plan.target and result.plan.changes:
        keep = frozenset(result.plan.by_hand) if overwrite is False else frozenset()
        target = result.plan.target.tree
        result.restored = await snaps.run(restore_tree, snaps.git, now.tree, target, keep)
    if conversation:
        leaf, result.text = _new_leaf(session, entry_id)
        session.set_leaf(leaf)
        if summary is not None:
            text, details = summary
            session.append("branch_summary", fromId=leaf or "root", summary=text, details=details)
        result.moved = True
    if snaps.off is None:
        after = await snaps.run(snaps.snapshot_now, session.session_id)
        snaps.record(session, after, "restored", target=entry_id)
    if conversation:
        shell.adopt_session(session, "tree")
    return result


async def undo_rewind(
    shell: ShellContext, snaps: Snapshots, overwrite: bool | None = None
) -> RewindResult:
    """Undo the last rewind or restore: its files and, if it moved, its conversation."""
    last = Timeline(shell.session).last_restore()
    if last is None:
        raise RewindError("Nothing to undo: no rewind or code restore in this session yet.")
    moved = bool(last.data.get("conversation"))
    return await rewind(
        shell, snaps, last.entry_id, code=True, conversation=moved, overwrite=overwrite
    )
