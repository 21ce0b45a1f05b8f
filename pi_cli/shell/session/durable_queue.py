"""The durable queue: steers and follow-ups still queued when a run ends by abort, error or a
crash are kept in the session, and offered back in the editor the next time it starts.

The queue is stored as ``queue`` entries (no tree nodes, like ``partial``): one whenever it
changes while it holds something, one when a run hands it back (``QueueReturned``), and an
empty one once it is delivered, offered back, or the next run starts after a hand-back. So a
pi killed mid-run (kill -9, a closed terminal) leaves the queue it had in the file. On open (and
on resume) a stored queue comes back as ``QueueReturned(reason="restored")``: the TUI and the
plain REPL put the texts into the editor, RPC clients get a ``queue_returned`` event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from agent_core import AgentStart
from pi_cli.shell.events import (
    QueueChanged,
    QueuedItem,
    QueueKind,
    QueueReturned,
    SessionChanged,
    ShellEvent,
)
from pi_cli.shell.session.entries import QUEUE

if TYPE_CHECKING:
    from collections.abc import Callable

    from pi_cli.shell.context import Level
    from pi_cli.shell.session.store import SessionStore


class QueueHost(Protocol):
    """What the durable queue uses of the shell."""

    @property
    def session(self) -> SessionStore: ...
    def emit(self, event: ShellEvent) -> None: ...
    def notify(self, text: str, level: Level = "info") -> None: ...
    def subscribe(self, listener: Callable[[ShellEvent], None]) -> Callable[[], None]: ...


def stored_items(store: SessionStore) -> list[QueuedItem]:
    """The queue stored in a session (``[]`` when none was left)."""
    entry = store.sidecar(QUEUE) or {}
    items = []
    for raw in entry.get("items") or []:
        if isinstance(raw, dict) and isinstance(raw.get("text"), str) and raw["text"].strip():
            kind: QueueKind = raw["kind"] if raw.get("kind") in ("steer", "follow_up") else "held"
            items.append(QueuedItem(id=str(raw.get("id") or "q0"), text=raw["text"], kind=kind))
    return items


class DurableQueue:
    """Keeps the shell's queue in its session (see the module docstring)."""

    def __init__(self, shell: QueueHost, offer: bool = True) -> None:
        self.shell = shell
        self.offers = offer  # one-shot runs (-p) leave a stored queue for the next editor
        self._stored: str = "empty"  # what the file holds now: empty, queued or returned
        self.offer(shell.session)
        shell.subscribe(self.on_event)

    def _store(self, items: list[QueuedItem], state: str) -> None:
        wire: list[dict[str, Any]] = [  # what pi queued itself is no text to give back
            {"id": i.id, "text": i.text, "kind": i.kind} for i in items if i.origin is None
        ]
        self.shell.session.append_sidecar(QUEUE, items=wire, reason=state)
        self._stored = state if items else "empty"

    def offer(self, store: SessionStore) -> None:
        """Hand a stored queue back to the front ends (once: the file then holds none)."""
        items = stored_items(store) if self.offers else []
        if not items:
            return
        count = f"{len(items)} message{'s' if len(items) != 1 else ''}"
        self.shell.notify(
            f"{count} still queued when this session last stopped "
            f"{'is' if len(items) == 1 else 'are'} back in the editor."
        )
        self.shell.emit(QueueReturned(items=items, reason="restored"))
        store.append_sidecar(QUEUE, items=[], reason="offered")
        self._stored = "empty"

    def on_event(self, event: ShellEvent) -> None:
        """Follow the queue: store it while it holds something, clear it once it is gone."""
        if isinstance(event, QueueChanged):
            if event.items or self._stored == "queued":
                self._store(list(event.items), "queued")
        elif isinstance(event, QueueReturned) and event.reason != "restored":
            self._store(list(event.items), event.reason)
        elif isinstance(event, AgentStart) and self._stored not in ("empty", "queued"):
            self._store([], "sent")  # a new run: what was handed back was dealt with
        elif isinstance(event, SessionChanged) and event.reason == "resume":
            self._stored = "empty"
            self.offer(self.shell.session)
