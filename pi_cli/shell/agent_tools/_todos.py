"""The todo list of one shell: what ``todo_write`` last wrote, shown live and kept in the session.

Every change is a :class:`~pi_cli.shell.events.agent_tools.TodoUpdated` event and a ``todos`` entry
of the session file (on the current branch), so ``pi -c``, ``/resume`` and ``/tree`` show the
list as it was at that point of the conversation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pi_cli.shell.events.agent_tools import TodoEntry, TodoUpdated

if TYPE_CHECKING:
    from pi_cli.shell.events import ShellEvent
    from pi_cli.shell.session.store import SessionStore
    from tools.todo import TodoItem

ENTRY = "todos"
"""The session entry type: ``{"type": "todos", "todos": [{content, status, activeForm}]}``."""


class TodoState:
    """The current list; ``changed`` is the todo tool's callback."""

    def __init__(
        self, emit: Callable[[ShellEvent], None], session: Callable[[], SessionStore]
    ) -> None:
        self.emit = emit
        self.session = session
        self.items: list[dict[str, Any]] = []

    def changed(self, todos: list[TodoItem]) -> None:
        """The model wrote a new list: store it, tell everyone."""
        self.items = [item.wire() for item in todos]
        self.session().append(ENTRY, todos=self.items)
        self._announce()

    def restore(self) -> None:
        """The list of the session's current branch (after a resume, /new, /fork, /tree)."""
        from tools.todo import parse_todos

        entry = self.session().latest(ENTRY)
        items = [item.wire() for item in parse_todos(entry.get("todos") if entry else [])]
        if items != self.items:
            self.items = items
            self._announce()

    def event(self) -> TodoUpdated:
        """The current list as an event (what a front end shows at start)."""
        return TodoUpdated(todos=[TodoEntry.model_validate(item) for item in self.items])

    def _announce(self) -> None:
        self.emit(self.event())
