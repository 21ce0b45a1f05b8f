"""The todo panel's controller: shows the model's list above the queue and toggles it.

The app owns one :class:`TodoPanels` and hands it the bridge's :class:`~.agent_messages.TodosShown`
messages and the ``pi.toggle_todos`` key; a shell attached with a stored list shows it at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pi_cli.tui.messages import clean
from pi_cli.tui.widgets.todo_panel import TodoPanel

if TYPE_CHECKING:
    from textual.css.query import DOMQuery
    from textual.widget import AwaitMount, Widget

    from pi_cli.shell import FrontShell


class PanelHost(Protocol):
    """What the controller uses of the app."""

    @property
    def queue_view(self) -> Widget: ...
    def query(self, selector: type[TodoPanel]) -> DOMQuery[TodoPanel]: ...
    def mount(self, *widgets: Widget, before: Widget | None = None) -> AwaitMount: ...


class TodoPanels:
    """The todo list of the app (mounted on first use, before the queue view)."""

    def __init__(self, host: PanelHost) -> None:
        self.host = host

    def panel(self) -> TodoPanel:
        """The panel, mounted now if it is not yet."""
        found = self.host.query(TodoPanel)
        if found:
            return found.first()
        panel = TodoPanel()
        self.host.mount(panel, before=self.host.queue_view)
        return panel

    def show(self, items: list[tuple[str, str]]) -> None:
        """The model wrote a new list: (status, text) items."""
        self.panel().show_items(items)

    def toggle(self) -> None:
        """Hide or show the list (``pi.toggle_todos``)."""
        self.panel().toggle()

    def show_stored(self, shell: FrontShell) -> None:
        """A shell attached with a list already (a resumed session's)."""
        items = shell.agent_tools.todos.items
        if items:
            self.show(
                [
                    (
                        str(item["status"]),
                        clean(
                            str(item.get("activeForm") or item["content"])
                            if item["status"] == "in_progress"
                            else str(item["content"])
                        ),
                    )
                    for item in items
                ]
            )
