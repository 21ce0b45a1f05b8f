"""Events in pi's shape, for RPC clients (and ``--mode json --json-partials``).

pi's ``message_update`` carries the whole partial message twice (``message`` and
``assistantMessageEvent.partial``), so its size grows with the square of the answer. Here delta
updates are coalesced to about 30 a second: consecutive deltas of one content block are merged
(their ``delta`` texts joined, so clients that print deltas lose nothing) and sent with the
latest partial. Other stream events (block start and end, tool calls) go out at once; any other
event first flushes what is pending, so the order is kept.

pi's event names are written beside ours: ``queue_update`` after ``queue_changed``,
``thinking_level_changed`` when the level changes, and ``compaction_end`` has pi's ``result``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from agent_core import AssistantMessage, MessageUpdate, to_wire
from pi_cli.modes.json_writer import event_data, is_written
from pi_cli.shell import CompactionEnd, ModelChanged, QueueChanged, ShellEvent

UPDATES_PER_SECOND = 30
_DELTAS = ("text_delta", "thinking_delta", "toolcall_delta")


class PiEventWriter:
    """A shell listener writing pi-shaped events through ``write`` (one dict per line)."""

    def __init__(
        self,
        write: Callable[[dict[str, Any]], None],
        thinking: str | None = None,
        interval: float = 1 / UPDATES_PER_SECOND,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.write = write
        self.interval = interval
        self.clock = clock
        self.thinking = thinking  # the level now, so its first change is reported
        self.updates_sent = 0
        self._pending: dict[str, Any] | None = None
        self._partial: AssistantMessage | None = None
        self._last = float("-inf")
        self._timer: asyncio.TimerHandle | None = None

    def __call__(self, event: ShellEvent) -> None:
        if isinstance(event, MessageUpdate):
            self._update(event)
            return
        self.flush()
        if not is_written(event):
            return
        data = event_data(event)
        if isinstance(event, CompactionEnd):
            data["result"] = _compaction_result(event)
        self.write(data)
        if isinstance(event, QueueChanged):
            self.write(_queue_update(event))
        elif isinstance(event, ModelChanged):
            if self.thinking is not None and event.thinking != self.thinking:
                self.write({"type": "thinking_level_changed", "level": event.thinking})
            self.thinking = event.thinking

    def _update(self, event: MessageUpdate) -> None:
        stream_event = to_wire(event.assistant_message_event)
        self._partial = event.message
        pending = self._pending
        if stream_event["type"] not in _DELTAS:
            self.flush()
            self._send(stream_event)
            return
        same_block = pending is not None and all(
            pending.get(k) == stream_event.get(k) for k in ("type", "contentIndex")
        )
        if pending is not None and same_block:
            pending["delta"] += stream_event["delta"]
        else:
            self.flush()
            self._pending = stream_event
        wait = self._last + self.interval - self.clock()
        if wait <= 0:
            self.flush()
        elif self._timer is None:
            try:
                self._timer = asyncio.get_running_loop().call_later(wait, self.flush)
            except RuntimeError:  # no loop: the next event (or the owner's flush) sends it
                pass

    def flush(self) -> None:
        """Send the pending merged delta, if any (with the latest partial message)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending, self._pending = self._pending, None
        if pending is not None:
            self._send(pending)

    def _send(self, stream_event: dict[str, Any]) -> None:
        partial = to_wire(self._partial) if self._partial is not None else None
        line: dict[str, Any] = {"type": "message_update"}
        if partial is not None:
            line["message"] = partial
            stream_event["partial"] = partial
        line["assistantMessageEvent"] = stream_event
        self._last = self.clock()
        self.updates_sent += 1
        self.write(line)


def _queue_update(event: QueueChanged) -> dict[str, Any]:
    """pi's ``queue_update``: texts of the pending steers and follow-ups (held ones follow)."""
    steering = [item.text for item in event.items if item.kind == "steer"]
    follow_up = [item.text for item in event.items if item.kind != "steer"]
    return {"type": "queue_update", "steering": steering, "followUp": follow_up}


def _compaction_result(event: CompactionEnd) -> dict[str, Any] | None:
    if event.summary is None:
        return None
    return {
        "summary": event.summary,
        "firstKeptEntryId": event.first_kept_entry_id,
        "tokensBefore": event.tokens_before,
        "details": {},
    }
