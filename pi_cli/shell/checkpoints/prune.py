"""Dropping old snapshots: by age (``checkpoints.keepDays``) and size (``checkpoints.maxRepoMb``).

Each session's snapshots hang off one ref, ``refs/pi/sessions/<id>``, whose newest commit
dates the session's last snapshot. Sessions idle longer than ``keepDays`` lose theirs; if the
repository is still bigger than ``maxRepoMb``, the oldest sessions go first. ``git gc`` then
removes what no ref keeps, except objects younger than an hour (another pi process may be
between writing a snapshot and naming it). Runs at most once a day per workspace, in the
checkpoint worker thread. Deleting a session (the resume picker) drops its snapshots too.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pi_cli.shell.checkpoints.git import GitError, ShadowGit, file_lock, safe_name
from pi_cli.shell.session.store import SessionError, SessionStore

if TYPE_CHECKING:
    from pi_cli.shell.config.settings import CheckpointSettings

PRUNE_EVERY_S = 24 * 3600
GRACE = "1.hour.ago"


@dataclass
class PruneReport:
    """What a prune did."""

    dropped: list[str] = field(default_factory=list)  # session ids
    size_mb: float = 0.0


def maybe_prune(git: ShadowGit, settings: CheckpointSettings) -> PruneReport | None:
    """Prune unless that was done in the last day (the stamp file says when)."""
    stamp = git.root / "pruned"
    with contextlib.suppress(OSError):
        if time.time() - stamp.stat().st_mtime < PRUNE_EVERY_S:
            return None
    with file_lock(git.root / "prune.lock"):
        report = prune(git, settings.keep_days, settings.max_repo_mb)
        stamp.touch()
    return report


def _session_refs(git: ShadowGit) -> list[tuple[float, str]]:
    out = git.run(
        "for-each-ref", "--format=%(committerdate:unix) %(refname)", "refs/pi/sessions/"
    ).decode()
    refs = []
    for line in out.splitlines():
        when, _, ref = line.partition(" ")
        if ref:
            refs.append((float(when or 0), ref))
    return sorted(refs)


def size_mb(git: ShadowGit) -> float:
    """The repository's object store in MB (loose and packed)."""
    fields = dict(
        line.split(": ", 1)
        for line in git.run("count-objects", "-v").decode().splitlines()
        if ": " in line
    )
    kib = int(fields.get("size", 0)) + int(fields.get("size-pack", 0))
    return kib * 1024 / 1_000_000


def drop_session(git: ShadowGit, session_id: str) -> None:
    """Forget one session's snapshots (its session file was deleted)."""
    _drop(git, git.ref(session_id))


def _protect_indexes(git: ShadowGit) -> None:
    """The files a session's index names stay (its next snapshot reuses them unread)."""
    if not git.index_dir.is_dir():
        return
    for index in git.index_dir.iterdir():
        if not index.is_file() or "." in index.name:
            continue
        with contextlib.suppress(GitError):
            tree = git.run("write-tree", "--missing-ok", index=index).strip().decode()
            git.run("update-ref", f"refs/pi/indexes/{index.name}", tree)


def _drop(git: ShadowGit, ref: str) -> str:
    session_id = ref.rsplit("/", 1)[-1]
    with contextlib.suppress(GitError):
        git.run("update-ref", "-d", ref)
    with contextlib.suppress(GitError):
        git.run("update-ref", "-d", f"refs/pi/indexes/{session_id}")
    with contextlib.suppress(OSError):
        (git.index_dir / safe_name(session_id)).unlink()
    return session_id


def prune(
    git: ShadowGit, keep_days: float, max_repo_mb: int, now: float | None = None
) -> PruneReport:
    """Drop snapshots of sessions idle for ``keep_days``, then the oldest over ``max_repo_mb``."""
    report = PruneReport()
    if not (git.git_dir / "HEAD").is_file():
        return report
    now = time.time() if now is None else now
    refs = _session_refs(git)
    kept = []
    for when, ref in refs:
        if now - when > keep_days * 86400:
            report.dropped.append(_drop(git, ref))
        else:
            kept.append((when, ref))
    _protect_indexes(git)
    git.run("gc", "--quiet", f"--prune={GRACE}")
    report.size_mb = size_mb(git)
    rounds = 0
    while report.size_mb > max_repo_mb and len(kept) > 1 and rounds < 6:
        half = max(1, len(kept) // 2)
        for _, ref in kept[:half]:
            report.dropped.append(_drop(git, ref))
        kept = kept[half:]
        git.run("gc", "--quiet", f"--prune={GRACE}")
        report.size_mb = size_mb(git)
        rounds += 1
    return report


def delete_session(path: Path, current: Path | None) -> None:
    """Delete a session file (never the one in use); its snapshots are dropped too."""
    if current is not None and path.resolve() == current.resolve():
        raise SessionError("This is the session in use: it cannot be deleted")
    store = SessionStore.open(path, persist=False)
    path.unlink()
    with contextlib.suppress(Exception):  # the snapshots go at the next prune otherwise
        workspace = Path(store.header.cwd) if store.header.cwd else path.parent
        drop_session(ShadowGit(workspace), store.session_id)
