"""The shell's event fan-out: one ordered stream of :data:`ShellEvent` to every listener."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from pi_cli.shell.context import Level
from pi_cli.shell.events import Listener, Notice, QueueReturned, ShellEvent

if TYPE_CHECKING:
    from pi_cli.shell.session.store import SessionStore

log = logging.getLogger("pi_cli")


class EventBus:
    """Listeners, plus the notices raised while the shell was built and a queue it handed back
    (a stored one, see :mod:`~pi_cli.shell.session.durable_queue`), replayed on subscribe.

    Args:
        after_emit: called after each event has reached every listener (the shell's state
            check, so a state change is reported right after the event that caused it).
    """

    def __init__(self, after_emit: Callable[[], None] = lambda: None) -> None:
        self._listeners: list[Listener] = []
        self._startup: list[Notice | QueueReturned] | None = []
        self.startup_events: list[Notice | QueueReturned] = []
        self.after_emit = after_emit
        self._warned: set[str] = set()

    def started(self) -> None:
        """The shell is built: later subscribers get the notices raised until now."""
        self.startup_events = self._startup or []
        self._startup = None

    @property
    def startup_notices(self) -> list[Notice]:
        """The notices raised while the shell was built."""
        return [e for e in self.startup_events if isinstance(e, Notice)]

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every event. Returns an unsubscribe function."""
        self._listeners.append(listener)
        for event in self.startup_events:
            listener(event)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, event: ShellEvent) -> None:
        """Send ``event`` to every listener, then run ``after_emit`` (not while the shell is
        being built: nothing runs yet, and its parts may not exist)."""
        self.fan_out(event)
        if self._startup is None:
            self.after_emit()

    def fan_out(self, event: ShellEvent) -> None:
        """Send ``event`` to every listener (a failing listener never breaks the shell)."""
        if self._startup is not None and isinstance(event, Notice | QueueReturned):
            self._startup.append(event)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:
                log.exception("listener failed")

    def notify(self, text: str, level: Level = "info") -> None:
        """Emit a :class:`Notice`."""
        self.emit(Notice(text=text, level=level))

    def warn_once(self, text: str, level: Level = "warning") -> None:
        """A notice shown once per shell (the system prompt is rebuilt several times...)."""
        if text not in self._warned:
            self._warned.add(text)
            self.notify(text, level)

    def report_session(self, session: SessionStore) -> None:
        """Tell the user once when the session file could not be written (or is shared)."""
        if session.write_error:
            self.warn_once(session.write_error, "error")
        while session.notices:
            self.warn_once(session.notices.pop(0), "warning")
