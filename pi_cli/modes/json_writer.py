"""Events as JSON lines. By default output stays linear in the answer: ``message_update``
carries the delta event only, never the whole partial message (``--json-partials`` writes pi's
shape instead, through :mod:`pi_cli.modes.pi_events`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

from agent_core import MessageUpdate, to_wire
from pi_cli.shell import (
    CommandResult,
    Notice,
    ShellEvent,
    ShellStateChanged,
    SubagentEvent,
    dumps_line,
    write_all,
)


def event_data(event: ShellEvent) -> dict[str, Any]:
    """One event in its camelCase wire shape (a sub-agent's inside ``subagent_event``)."""
    if isinstance(event, MessageUpdate):
        return {
            "type": "message_update",
            "assistantMessageEvent": to_wire(event.assistant_message_event),
        }
    if isinstance(event, SubagentEvent):  # its message_update stays a delta too
        inner = event.event
        return {
            "type": "subagent_event",
            "taskId": event.task_id,
            "agent": event.agent,
            "event": event_data(inner) if isinstance(inner, MessageUpdate) else to_wire(inner),
        }
    return to_wire(event)


def event_line(event: ShellEvent) -> bytes:
    """One event as a compact JSON line of UTF-8 bytes, ``\\n`` included."""
    return dumps_line(event_data(event))


def is_written(event: ShellEvent) -> bool:
    """Whether JSON and RPC output carry ``event`` (the busy state is for interactive UIs)."""
    return not isinstance(event, ShellStateChanged)


def write_command_output(
    write_event: Callable[[ShellEvent], None], result: CommandResult | None
) -> None:
    """A slash command's output as a :class:`Notice` event (RPC and ``--mode json``)."""
    if result is not None and result.output:
        write_event(Notice(text=result.output, level="error" if result.error else "info"))


class JsonEventWriter:
    """A listener writing each event as one line; a closed pipe stops writing quietly."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.broken = False

    def write_header(self, header: dict[str, Any]) -> None:
        """Write the session header line."""
        self._write(dumps_line(header))

    def write_data(self, payload: dict[str, Any]) -> None:
        """Write one already-shaped event (pi's shapes, ``--json-partials``)."""
        self._write(dumps_line(payload))

    def __call__(self, event: ShellEvent) -> None:
        if is_written(event):
            self._write(event_line(event))

    def _write(self, line: bytes) -> None:
        """One whole line, or nothing more once the reader has gone (EPIPE)."""
        if self.broken:
            return
        try:
            # A blocking write: a slow reader slows us down instead of making us fail or buffer.
            # Bytes to the binary buffer: the text layer could reject an escaped lone surrogate.
            buffer = getattr(self.stream, "buffer", None)
            if buffer is not None:
                self.stream.flush()
                write_whole(buffer, line)
            else:
                self.stream.write(line.decode("utf-8"))
                self.stream.flush()
        except OSError:  # BrokenPipeError included
            self.broken = True


def write_whole(buffer: Any, line: bytes) -> None:
    """Write ``line`` to a binary stream whole (JSON mode, RPC); raises OSError (EPIPE...)."""
    buffer.flush()
    fd = _fileno(buffer)
    if fd is None:
        buffer.write(line)
        buffer.flush()
    else:
        write_all(fd, line)


def _fileno(buffer: Any) -> int | None:
    try:
        return int(buffer.fileno())
    except (OSError, ValueError, AttributeError):  # an in-memory stream
        return None
