"""todo_write through the shell: live events, kept in the session, back on resume, JSON lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_cli.shell.events.agent_tools import TodoUpdated
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.agent_tools.conftest import RunPi, fake_args, make_shell, record, tool_texts

PLAN = [
    {"content": "Read the code", "status": "completed"},
    {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
    {"content": "Run the tests", "status": "pending"},
]


def write(call_id: str, todos: list[dict[str, Any]]) -> ToolCallSpec:
    return ToolCallSpec("todo_write", {"todos": todos}, id=call_id)


async def test_the_list_is_shown_stored_and_restored(
    project: Path, server: FakeProviderServer
) -> None:
    done = [dict(item, status="completed") for item in PLAN]
    server.add(
        Turn(tool_calls=[write("w1", PLAN)]),
        Turn(tool_calls=[write("w2", done)]),
        Turn(text="All done."),
    )
    shell = make_shell(project, server)
    events = record(shell)
    await shell.submit("fix it")
    await shell.wait_idle()
    updates = [e for e in events if isinstance(e, TodoUpdated)]
    assert [[t.status for t in u.todos] for u in updates] == [
        ["completed", "in_progress", "pending"],
        ["completed", "completed", "completed"],
    ]
    assert updates[0].model_dump(mode="json", by_alias=True, exclude_none=True)["todos"][1] == {
        "content": "Fix the bug",
        "status": "in_progress",
        "activeForm": "Fixing the bug",
    }
    assert "3 items (1 completed, 1 in progress, 1 pending)" in tool_texts(server.requests[1])[0]
    path = shell.session.path
    assert path is not None
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    stored = [e for e in entries if e.get("type") == "todos"]
    assert len(stored) == 2 and stored[-1]["todos"][0]["status"] == "completed"
    await shell.aclose()

    resumed = make_shell(project, server, continue_session=True)
    assert resumed.agent_tools.todos.items == stored[-1]["todos"]
    events = record(resumed)
    resumed.new_session()  # a fresh session has no list: cleared, and said
    assert resumed.agent_tools.todos.items == []
    assert [e.todos for e in events if isinstance(e, TodoUpdated)] == [[]]
    resumed.switch_session(str(path))
    assert resumed.agent_tools.todos.items == stored[-1]["todos"]
    await resumed.aclose()


async def test_a_bad_list_is_the_models_error_and_changes_nothing(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(
        Turn(tool_calls=[write("w1", [{"content": "x", "status": "finished"}])]),
        Turn(text="ok"),
    )
    shell = make_shell(project, server)
    events = record(shell)
    await shell.submit("plan")
    await shell.wait_idle()
    assert "Invalid arguments for tool todo_write" in tool_texts(server.requests[1])[0]
    assert not [e for e in events if isinstance(e, TodoUpdated)]
    await shell.aclose()


def test_json_mode_writes_todo_updated_lines(server: FakeProviderServer, run_pi: RunPi) -> None:
    server.add(Turn(tool_calls=[write("w1", PLAN)]), Turn(text="planned"))
    result = run_pi(*fake_args(server, "--mode", "json"), "plan the fix")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    (update,) = [line for line in lines if line["type"] == "todo_updated"]
    assert update == {"type": "todo_updated", "todos": PLAN}
