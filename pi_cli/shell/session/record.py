"""The session side of agent events: finished messages, and answers while they stream.

A finished message is appended as it ends. Before that, the text and thinking of a streaming
answer are appended as ``partial`` entries at most once per ``interval_s`` (one timer per
window, nothing per chunk but a list append), so a pi killed mid-answer (kill -9, a crash, a
closed terminal) leaves a file whose next resume shows what had arrived, marked incomplete
(:mod:`pi_cli.shell.session.entries`). The finished message supersedes the partials.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from typing import Any

from agent_core import (
    AssistantMessage,
    MessageEnd,
    MessageStart,
    MessageUpdate,
    TextDelta,
    ThinkingDelta,
)
from pi_cli.shell.session.store import SessionStore

FLUSH_INTERVAL_S = 1.0
"""At most one partial write per this many seconds while an answer streams."""


class StreamRecorder:
    """Persists agent events into the current session (``session()`` may change)."""

    def __init__(
        self, session: Callable[[], SessionStore], interval_s: float = FLUSH_INTERVAL_S
    ) -> None:
        self._session = session
        self.interval_s = interval_s
        self._parts: list[tuple[int, str, str]] = []  # (content index, kind, text) not yet saved
        self._timer: asyncio.TimerHandle | None = None
        self._model = ""

    def on_event(self, event: Any) -> None:
        """Handle one agent event (called for every event: the delta path stays cheap)."""
        if isinstance(event, MessageUpdate):
            sub = event.assistant_message_event
            if isinstance(sub, TextDelta):
                self._add(sub.content_index, "text", sub.delta)
            elif isinstance(sub, ThinkingDelta):
                self._add(sub.content_index, "thinking", sub.delta)
        elif isinstance(event, MessageStart):
            if isinstance(event.message, AssistantMessage):
                self._drop()
                self._model = event.message.model
        elif isinstance(event, MessageEnd):
            self._drop()  # the finished message supersedes what was saved of it
            self._session().append_message(event.message)

    def _add(self, index: int, kind: str, text: str) -> None:
        self._parts.append((index, kind, text))
        if self._timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop (a synchronous caller): save at once
                self.flush()
                return
            self._timer = loop.call_later(self.interval_s, self.flush)

    def flush(self) -> None:
        """Write what arrived since the last write as one ``partial`` entry."""
        self._timer = None
        if not self._parts:
            return
        runs: list[tuple[int, str, list[str]]] = []  # consecutive pieces of one block, joined
        for index, kind, text in self._parts:
            if runs and runs[-1][0] == index and runs[-1][1] == kind:
                runs[-1][2].append(text)
            else:
                runs.append((index, kind, [text]))
        self._parts = []
        deltas = [{"index": i, "type": k, "text": "".join(t)} for i, k, t in runs]
        # The pid tells another pi opening this file that the answer is still streaming here.
        self._session().append_partial(deltas, model=self._model, pid=os.getpid())

    def _drop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._parts = []
