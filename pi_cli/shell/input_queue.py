"""The shell's input queue: what the user typed while pi was busy, as data with stable ids.

One ordered list, grouped by kind (steers, then follow-ups, then held inputs). The live run's
loop drains steers at each turn start and follow-ups when it would stop, honouring the delivery
modes (``one-at-a-time`` or ``all``); held inputs wait for the shell to be idle. Messages pi
itself delivers (a monitor's lines: :meth:`InputQueue.deliver`) go with the steers. Every change is
reported through ``on_change`` so each front end shows the same queue, and any single item can
be edited, removed, moved within its group or promoted to a steer while the run goes on.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Literal

from agent_core import ImageContent, Message, user_message
from pi_cli.shell.events import QueuedItem, QueueKind

DeliveryMode = Literal["one-at-a-time", "all"]
_ORDER: dict[QueueKind, int] = {"steer": 0, "follow_up": 1, "held": 2}


class QueueError(Exception):
    """No queued item has that id (it may have been delivered meanwhile)."""


@dataclass(frozen=True)
class QueuedInput:
    """One queued input."""

    id: str
    text: str
    kind: QueueKind
    images: tuple[ImageContent, ...] = ()
    origin: str | None = None
    """None: the user typed it; else what pi queued it for (``agent:a1``, a background
    sub-agent's report). Such items are never handed back to the editor."""

    def wire(self) -> QueuedItem:
        """The item as events and RPC carry it."""
        return QueuedItem(id=self.id, text=self.text, kind=self.kind, origin=self.origin)

    def message(self) -> Message:
        """The user message the model receives."""
        return user_message(self.text, list(self.images) or None)


@dataclass
class InputQueue:
    """Queued inputs in delivery order (see the module docstring)."""

    steering_mode: DeliveryMode = "one-at-a-time"
    follow_up_mode: DeliveryMode = "one-at-a-time"
    on_change: Callable[[list[QueuedInput]], None] = lambda items: None
    _items: list[QueuedInput] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _deliveries: list[Message] = field(default_factory=list)

    def items(self) -> list[QueuedInput]:
        """A snapshot, in delivery order."""
        return list(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def _changed(self) -> None:
        self._items.sort(key=lambda item: _ORDER[item.kind])  # stable: keeps order in a group
        self.on_change(self.items())

    def add(
        self,
        text: str,
        kind: QueueKind,
        images: list[ImageContent] | None = None,
        origin: str | None = None,
    ) -> QueuedInput:
        """Queue ``text`` at the end of its group."""
        item = QueuedInput(f"q{next(self._ids)}", text, kind, tuple(images or ()), origin)
        self._items.append(item)
        self._changed()
        return item

    def add_front(self, items: list[QueuedInput], kind: QueueKind) -> None:
        """Put ``items`` (keeping their ids) at the front of group ``kind``."""
        if not items:
            return
        moved = [replace(item, kind=kind) for item in items]
        self._items = moved + [i for i in self._items if i.id not in {m.id for m in moved}]
        self._changed()

    def _index(self, item_id: str) -> int:
        for index, item in enumerate(self._items):
            if item.id == item_id:
                return index
        raise QueueError(f"No queued message {item_id} (it may have been delivered already)")

    def get(self, item_id: str) -> QueuedInput:
        """The item with ``item_id`` (raises :class:`QueueError`)."""
        return self._items[self._index(item_id)]

    def edit(self, item_id: str, text: str) -> QueuedInput:
        """Replace the text of one item (it keeps its id, kind and place)."""
        index = self._index(item_id)
        self._items[index] = replace(self._items[index], text=text)
        self._changed()
        return self._items[index]

    def remove(self, item_id: str) -> QueuedInput:
        """Drop one item."""
        item = self._items.pop(self._index(item_id))
        self._changed()
        return item

    def move(self, item_id: str, index: int) -> QueuedInput:
        """Move one item to ``index`` of the whole list, clamped to its own group."""
        item = self._items.pop(self._index(item_id))
        group = [i for i, other in enumerate(self._items) if other.kind == item.kind]
        lowest = (
            group[0] if group else sum(1 for o in self._items if _ORDER[o.kind] < _ORDER[item.kind])
        )
        highest = group[-1] + 1 if group else lowest
        self._items.insert(min(max(index, lowest), highest), item)
        self._changed()
        return item

    def promote(self, item_id: str) -> QueuedInput:
        """Make a follow-up or held input a steer (last of the steers)."""
        index = self._index(item_id)
        item = replace(self._items.pop(index), kind="steer")
        steers = sum(1 for other in self._items if other.kind == "steer")
        self._items.insert(steers, item)
        self._changed()
        return item

    def take_all(self) -> list[QueuedInput]:
        """Remove and return every item, in delivery order."""
        taken, self._items = self._items, []
        if taken:
            self._changed()
        return taken

    def take_typed(self) -> list[QueuedInput]:
        """Remove and return what the user typed; what pi queued (``origin``) stays, as steers
        for the next run."""
        taken = [item for item in self._items if item.origin is None]
        kept = [item for item in self._items if item.origin is not None]
        if not taken and all(item.kind == "steer" for item in kept):
            return []
        self._items = [replace(item, kind="steer") for item in kept]
        self._changed()
        return taken

    def take_next_held(self) -> QueuedInput | None:
        """Remove and return the first held input, if any."""
        for index, item in enumerate(self._items):
            if item.kind == "held":
                del self._items[index]
                self._changed()
                return item
        return None

    def _drain(self, kind: QueueKind, mode: DeliveryMode) -> list[Message]:
        chosen = [item for item in self._items if item.kind == kind]
        if not chosen:
            return []
        if mode == "one-at-a-time":
            chosen = chosen[:1]
        ids = {item.id for item in chosen}
        self._items = [item for item in self._items if item.id not in ids]
        self._changed()
        return [item.message() for item in chosen]

    def drain_steering(self) -> list[Message]:
        """For the loop: the steers to inject at the next turn start (then every delivery)."""
        return self._drain("steer", self.steering_mode) + self.take_deliveries()

    def deliver(self, message: Message) -> None:
        """Queue a message pi itself sends the model at the next turn boundary (a monitor's
        lines): not the user's, so never listed, edited or handed back to the editor."""
        self._deliveries.append(message)

    @property
    def deliveries(self) -> int:
        """How many such messages wait."""
        return len(self._deliveries)

    def take_deliveries(self) -> list[Message]:
        """Remove and return them, oldest first."""
        taken, self._deliveries = self._deliveries, []
        return taken

    def drain_follow_ups(self) -> list[Message]:
        """For the loop: the follow-ups to handle now that the run would stop."""
        return self._drain("follow_up", self.follow_up_mode)

    def hold_leftovers(self) -> None:
        """After a run: steers and follow-ups it did not take become held inputs, in order."""
        left = [item for item in self._items if item.kind != "held"]
        if left:
            self.add_front(left, "held")
