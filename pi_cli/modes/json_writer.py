"""Events as JSON lines. Output stays linear in the answer: ``message_update`` carries the delta
event only, never the whole partial message."""

from __future__ import annotations

import json
from typing import Any, TextIO

from agent_core import MessageUpdate, to_wire


def event_line(event: Any) -> str:
    """One event as a compact JSON line (camelCase wire shape)."""
    if isinstance(event, MessageUpdate):
        data = {"type": "message_update", "assistantMessageEvent": to_wire(event.assistant_message_event)}
    else:
        data = to_wire(event)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


class JsonEventWriter:
    """A listener writing each event as one line; a closed pipe stops writing quietly."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.broken = False

    def write_header(self, header: dict[str, Any]) -> None:
        """Write the session header line."""
        self._write(json.dumps(header, separators=(",", ":")))

    def __call__(self, event: Any) -> None:
        self._write(event_line(event))

    def _write(self, line: str) -> None:
        if self.broken:
            return
        try:
            # A blocking write: a slow reader slows us down instead of making us fail or buffer.
            self.stream.write(line + "\n")
            self.stream.flush()
        except BrokenPipeError:
            self.broken = True
        except OSError:
            self.broken = True
