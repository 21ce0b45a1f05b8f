"""Repairing the tree of a damaged session file, so a bad line costs that line only.

A session file is a tree by ``parentId``. A line that cannot be read (truncated, corrupt,
deleted, or moved by hand) would cut every entry before it off the leaf's path, and with it from
the screen and the model's context. After indexing, this module:

- relinks an entry whose parent is not in the file to the nearest entry before it in the file
  (an unreadable line whose id could still be read is kept as a ``damaged`` link instead, so
  its children keep their exact parent: :mod:`.index`);
- keeps each id once (a duplicated line) and picks the leaf as the newest readable entry,
  following its children if lines were reordered, never stopping on a damaged link;
- names every repair in one warning line each.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pi_cli.shell.session.index import DAMAGED, EntryRef


@dataclass
class Repaired:
    """What :func:`repair` found."""

    order: list[str]
    """Entry ids in file order, each once."""
    leaf: str | None
    warnings: list[str] = field(default_factory=list)
    stand_ins: dict[str, str] = field(default_factory=dict)
    """A missing entry -> the first entry that followed it (a compaction that kept entries from
    the missing one keeps them from there)."""


def repair(entries: dict[str, EntryRef], order: list[str], name: str) -> Repaired:
    """Relink parents that are not in the file (in place) and pick the leaf."""
    unique = list(dict.fromkeys(order))
    warnings: list[str] = []
    stand_ins: dict[str, str] = {}
    previous: str | None = None
    for entry_id in unique:
        ref = entries[entry_id]
        if ref.parent_id is not None and ref.parent_id not in entries:
            stand_ins.setdefault(ref.parent_id, entry_id)
            warnings.append(
                f"{name}: entry {entry_id} follows entry {ref.parent_id}, which is not in the "
                f"file; it now follows {previous or 'the start of the session'}"
            )
            ref.parent_id = previous
        previous = entry_id
    if len(unique) != len(order):
        warnings.append(f"{name}: {len(order) - len(unique)} duplicated line(s) read once")
    return Repaired(unique, _leaf(entries, unique), warnings, stand_ins)


def _leaf(entries: dict[str, EntryRef], order: list[str]) -> str | None:
    """The newest readable entry, then down its children (lines out of order), never a link
    that carries nothing."""
    position = {entry_id: index for index, entry_id in enumerate(order)}
    children: dict[str, list[str]] = {}
    for entry_id in order:
        parent = entries[entry_id].parent_id
        if parent is not None:
            children.setdefault(parent, []).append(entry_id)
    readable = [i for i in order if entries[i].type != DAMAGED]
    leaf = readable[-1] if readable else None
    seen: set[str] = set()
    while leaf is not None and leaf not in seen and children.get(leaf):
        seen.add(leaf)
        leaf = max(children[leaf], key=position.__getitem__)
    while leaf is not None and entries[leaf].type == DAMAGED:
        leaf = entries[leaf].parent_id
    return leaf
