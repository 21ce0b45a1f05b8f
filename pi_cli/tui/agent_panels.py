"""The app's part for the agent tools: the todo panel and its key (a mixin of ``PiApp``).

Textual calls message handlers of every class in the app's MRO, so the handlers here run
beside the app's own (``on_mount``, ``on_shell_built``) without the app calling them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pi_cli.tui import agent_messages as am
from pi_cli.tui.messages import clean
from pi_cli.tui.widgets.todo_panel import TodoPanel

if TYPE_CHECKING:
    from pi_cli.shell.coding_agent import CodingAgent


class AgentPanels:
    """Mixed into the app: shows the todo list above the queue and toggles it."""

    shell: CodingAgent | None

    def _todo_panel(self) -> TodoPanel:
        app: Any = self
        found = app.query(TodoPanel)
        if found:
            return found.first()
        panel = TodoPanel()
        app.mount(panel, before=app.queue_view)
        return panel

    def on_todos_shown(self, message: am.TodosShown) -> None:
        """The model wrote a new list."""
        self._todo_panel().show_items(message.items)

    def action_toggle_todos(self) -> None:
        """Hide or show the todo list."""
        self._todo_panel().toggle()

    def _show_stored_todos(self) -> None:
        shell = self.shell
        items = shell.agent_tools.todos.items if shell is not None else []
        if items:
            shown = [
                (str(i["status"]), clean(str(i.get("activeForm") or i["content"])))
                if i["status"] == "in_progress"
                else (str(i["status"]), clean(str(i["content"])))
                for i in items
            ]
            self._todo_panel().show_items(shown)

    async def on_mount(self) -> None:
        self._show_stored_todos()  # a shell given at construction (a resumed session's list)

    async def on_shell_built(self, message: Any) -> None:
        self._show_stored_todos()  # after the app's own handler attached the shell
