"""The ``todo_write`` tool: the model's plan as a typed list that the user watches.

Each call replaces the whole list (Claude Code's ``TodoWrite`` shape: ``content``, ``status``,
``activeForm``). The tool holds the current list; the shell passes ``on_change`` to show it live
and to store it in the session.
"""

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from msgspec import Meta, field

from agent_core import AbortSignal, ToolArguments, ToolBase, ToolError, ToolResult
from agent_core.tool import OnToolUpdate

TodoStatus = Literal["pending", "in_progress", "completed"]
MAX_ITEMS = 100


class TodoItem(ToolArguments):
    """One step of the plan."""

    content: Annotated[
        str,
        Meta(
            min_length=1,
            max_length=500,
            description="The step, in the imperative: 'Run the test suite'",
        ),
    ]
    status: Annotated[
        TodoStatus,
        Meta(
            description="pending (not started), in_progress (working on it now), completed (done)"
        ),
    ]
    active_form: Annotated[
        Annotated[str, Meta(max_length=500)] | None,
        Meta(description="The step as shown while it is in progress: 'Running the test suite'"),
    ] = field(name="activeForm", default=None)

    def wire(self) -> dict[str, Any]:
        """The item as it goes into events and sessions (camelCase, no nulls)."""
        return self.model_dump(by_alias=True, exclude_none=True)


class TodoWriteArgs(ToolArguments):
    """Arguments of the todo_write tool."""

    todos: Annotated[
        list[TodoItem],
        Meta(
            max_length=MAX_ITEMS,
            description="The whole list, in order; it replaces the previous one",
        ),
    ]


TodoChanged = Callable[[list[TodoItem]], None]
"""Called with the new list after every successful call."""


def counts(todos: list[TodoItem]) -> dict[TodoStatus, int]:
    """How many items are in each state."""
    out: dict[TodoStatus, int] = {"pending": 0, "in_progress": 0, "completed": 0}
    for item in todos:
        out[item.status] += 1
    return out


def parse_todos(items: object) -> list[TodoItem]:
    """Items from their wire form (a stored session entry); invalid ones are dropped."""
    out: list[TodoItem] = []
    for raw in items if isinstance(items, list) else []:
        try:
            out.append(TodoItem.model_validate(raw))
        except ValueError:
            continue
    return out


class TodoTool(ToolBase):
    """Write the model's task list (the shell shows it and keeps it in the session)."""

    name = "todo_write"
    summary = "Keep a visible task list (pending / in_progress / completed) for multi-step work"
    guideline = (
        "For work with several steps, keep a plan with todo_write: mark one item in_progress "
        "when you start it and completed as soon as it is done; skip it for a single quick task."
    )
    description = (
        "Create and update the task list for the current work; the user sees it live. Each "
        "call sends the complete list and replaces the previous one. Use it for tasks with "
        "three or more steps or when the user gives several tasks: add the steps as pending, "
        "set one to in_progress before you start it, and set it to completed right after it "
        "is done (do not batch completions). Remove items that are no longer relevant. Do not "
        "use it for a single, trivial task."
    )
    parameters = TodoWriteArgs

    def __init__(self, on_change: TodoChanged | None = None) -> None:
        self.todos: list[TodoItem] = []
        self.on_change = on_change

    def title(self, args: Mapping[str, Any]) -> str:
        """``3 items, 1 done`` (from the raw, maybe partial, arguments)."""
        todos = args.get("todos") if isinstance(args, Mapping) else None
        if not isinstance(todos, list):
            return ""
        done = sum(1 for t in todos if isinstance(t, Mapping) and t.get("status") == "completed")
        return f"{len(todos)} item{'s' if len(todos) != 1 else ''}, {done} done"

    async def execute(
        self,
        tool_call_id: str,
        args: TodoWriteArgs,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Replace the list and report it."""
        if cancel.aborted:
            raise ToolError("Aborted")
        self.todos = list(args.todos)
        if self.on_change is not None:
            self.on_change(list(self.todos))
        tally = counts(self.todos)
        text = (
            f"Todo list updated: {len(self.todos)} items ({tally['completed']} completed, "
            f"{tally['in_progress']} in progress, {tally['pending']} pending)."
        )
        if len(self.todos) and tally["in_progress"] == 0 and tally["pending"]:
            text += " Mark the item you work on next as in_progress."
        return ToolResult.of_text(text, details={"todos": [item.wire() for item in self.todos]})


def create_todo_tool(cwd: str | Path, on_change: TodoChanged | None = None) -> TodoTool:
    """A todo_write tool (``cwd`` unused: the list is not a file)."""
    return TodoTool(on_change)
