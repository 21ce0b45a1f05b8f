"""The ``checkpoint`` entries of a session: the code state of any entry, and who changed what.

A ``checkpoint`` entry is a tree node like any other (``parentId`` is the entry it follows),
with the snapshot's ``tree`` and a ``kind``:

- ``turn``: taken before a turn whose tool calls may change files, so what changes until the
  next snapshot is the agent's doing;
- ``run_end``: taken after each run, so what changes until the next snapshot was done by hand
  (or by another program) between runs;
- ``restore``: the state just before a rewind or restore (a rewind can be undone from it);
- ``restored``: the state right after one (what changes after it is again by hand).

**The code of an entry** is that of the first snapshot taken after it on its own branch (no
tool changed files between the entry and that snapshot: every change is preceded by a
``turn`` snapshot), else of the last snapshot before it on its path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pi_cli.shell.session.entries import CHECKPOINT, CHECKPOINT_KINDS
from pi_cli.shell.session.store import SessionStore

Kind = Literal["turn", "run_end", "restore", "restored"]
KINDS = CHECKPOINT_KINDS
BY_HAND_AFTER = frozenset({"run_end", "restored"})
"""Kinds after which, until the next snapshot, no run of this session was changing files."""


@dataclass(frozen=True)
class Checkpoint:
    """One ``checkpoint`` entry."""

    entry_id: str
    parent_id: str | None
    tree: str
    kind: str
    position: int  # in the session's file order (chronological)
    timestamp: str
    data: dict[str, Any]


class Timeline:
    """The checkpoints of one session as it is now (build a new one after it changes)."""

    def __init__(self, session: SessionStore) -> None:
        self.session = session
        self.position = {entry_id: i for i, entry_id in enumerate(session.order)}
        refs = [session.entries[i] for i in session.order if session.entries[i].type == CHECKPOINT]
        self.checkpoints: list[Checkpoint] = []
        for data in session.iter_entries(refs):
            entry_id = str(data["id"])
            self.checkpoints.append(
                Checkpoint(
                    entry_id,
                    data.get("parentId"),
                    str(data["tree"]),
                    str(data["kind"]),
                    self.position.get(entry_id, -1),
                    str(data.get("timestamp", "")),
                    data,
                )
            )
        self.by_id = {cp.entry_id: cp for cp in self.checkpoints}

    @property
    def last(self) -> Checkpoint | None:
        """The newest snapshot of the session."""
        return self.checkpoints[-1] if self.checkpoints else None

    def _descends(self, entry_id: str, ancestor: str) -> bool:
        """Whether ``entry_id`` is ``ancestor`` or below it (parents come first in the file)."""
        entries = self.session.entries
        floor = self.position.get(ancestor, 0)
        current: str | None = entry_id
        while current is not None and current in entries:
            if current == ancestor:
                return True
            if self.position.get(current, -1) < floor:
                return False
            current = entries[current].parent_id
        return False

    def code_at(self, entry_id: str | None) -> Checkpoint | None:
        """The snapshot holding the code as it was at ``entry_id`` (``None``: none known)."""
        if entry_id is None:  # before the first entry: the first snapshot of the session
            return self.checkpoints[0] if self.checkpoints else None
        if entry_id not in self.session.entries:
            return None
        start = self.position.get(entry_id, 0)
        for cp in self.checkpoints:
            if cp.position >= start and self._descends(cp.entry_id, entry_id):
                return cp
        for ref in reversed(self.session.path_to(entry_id)):
            if ref.id in self.by_id:
                return self.by_id[ref.id]
        return None

    def since(self, checkpoint: Checkpoint) -> list[Checkpoint]:
        """``checkpoint`` and every snapshot taken after it, in order."""
        return [cp for cp in self.checkpoints if cp.position >= checkpoint.position]

    def by_hand_pairs(self, checkpoint: Checkpoint, current_tree: str) -> list[tuple[str, str]]:
        """Tree pairs (older, newer) whose differences were made by hand after ``checkpoint``.

        Consecutive snapshots from ``checkpoint`` on where the older one ends a run (or a
        restore), plus the newest snapshot against the workspace now (pi is idle then).
        """
        chain = self.since(checkpoint)
        pairs = [(a.tree, b.tree) for a, b in zip(chain, chain[1:], strict=False)]
        kinds = [a.kind for a in chain]
        hand = [pair for pair, kind in zip(pairs, kinds, strict=False) if kind in BY_HAND_AFTER]
        if chain:
            hand.append((chain[-1].tree, current_tree))
        return [(a, b) for a, b in hand if a != b]

    def last_restore(self) -> Checkpoint | None:
        """The newest ``restore`` snapshot (the state before the last rewind), if any."""
        return next((cp for cp in reversed(self.checkpoints) if cp.kind == "restore"), None)
