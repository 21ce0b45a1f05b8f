"""todo_write, task and exit_plan_mode on their own: validation, results, what they hand the shell."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from agent_core import AbortSignal, ToolError, ToolResult
from agent_core.records import RecordError
from tests.tools._helpers import run
from tools import TOOL_FACTORIES, create_tools
from tools.exit_plan_mode import ExitPlanModeTool, PlanDecision
from tools.services import ToolServices
from tools.task import AgentProfileInfo, TaskOutcome, TaskRequest, TaskTool
from tools.todo import TodoItem, TodoTool, parse_todos


async def test_todo_write_replaces_the_list_and_reports_it() -> None:
    seen: list[list[TodoItem]] = []
    tool = TodoTool(seen.append)
    todos = [
        {"content": "Read the code", "status": "completed"},
        {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
        {"content": "Run the tests", "status": "pending"},
    ]
    result = await run(tool, todos=todos)
    assert "3 items (1 completed, 1 in progress, 1 pending)" in result.text
    assert result.details["todos"][1] == {
        "content": "Fix the bug",
        "status": "in_progress",
        "activeForm": "Fixing the bug",
    }
    assert [t.content for t in seen[-1]] == ["Read the code", "Fix the bug", "Run the tests"]
    await run(tool, todos=[])
    assert tool.todos == [] and seen[-1] == []
    assert tool.title({"todos": todos}) == "3 items, 1 done"
    assert tool.title({"todos": "nope"}) == ""


@pytest.mark.parametrize(
    ("todos", "where"),
    [
        ([{"content": "", "status": "pending"}], "$.todos[0].content"),
        ([{"content": "x", "status": "done-ish"}], "$.todos[0].status"),
        ([{"status": "pending"}], "$.todos[0]"),
        ([{"content": "x", "status": "pending"}] * 101, "$.todos"),
        ([{"content": "x" * 501, "status": "pending"}], "$.todos[0].content"),
    ],
)
async def test_todo_write_rejects_bad_lists(todos: list[dict[str, Any]], where: str) -> None:
    with pytest.raises(RecordError, match=f"at `{re.escape(where)}`$"):
        await run(TodoTool(), todos=todos)


def test_stored_todos_are_read_leniently() -> None:
    items = parse_todos(
        [{"content": "ok", "status": "pending"}, {"content": "bad", "status": 3}, "junk"]
    )
    assert [i.content for i in items] == ["ok"]
    assert parse_todos(None) == []


class _Runner:
    def __init__(self, outcome: TaskOutcome, hang: bool = False) -> None:
        self.outcome = outcome
        self.hang = hang
        self.requests: list[TaskRequest] = []

    async def __call__(self, request: TaskRequest, cancel: AbortSignal, on_update: Any) -> Any:
        self.requests.append(request)
        if self.hang:
            await asyncio.Event().wait()
        return self.outcome


async def test_task_returns_the_answer_and_its_cost() -> None:
    usage = {"input": 1200, "output": 300, "cacheRead": 0, "cacheWrite": 0, "cost": 0.0123}
    runner = _Runner(TaskOutcome("Found 3 callers.", "explorer", "openai/m", 2, usage))
    tool = TaskTool([AgentProfileInfo("explorer", "Searches code")], runner)
    result = await run(
        tool, description="find callers", prompt="Find callers of f", subagent_type="explorer"
    )
    assert result.text.startswith("Found 3 callers.")
    assert "[agent explorer · openai/m · 2 turns · ↑1200 ↓300 tokens · $0.0123]" in result.text
    assert result.details["usage"]["cost"] == 0.0123
    assert runner.requests[0] == TaskRequest(
        "call-1", "explorer", "find callers", "Find callers of f"
    )
    assert "- explorer: Searches code" in tool.description
    assert "- general-purpose:" in tool.description


async def test_task_refuses_unknown_agents_and_reports_failures() -> None:
    runner = _Runner(TaskOutcome("", "general-purpose", "m", 1, {}, error="provider down"))
    tool = TaskTool([], runner)
    with pytest.raises(ToolError, match="Unknown subagent_type 'nope'. Available: general-purpose"):
        await run(tool, description="x", prompt="y", subagent_type="nope")
    assert runner.requests == []
    with pytest.raises(ToolError, match="The sub-agent failed: provider down"):
        await run(tool, description="x", prompt="y")
    with pytest.raises(ToolError, match="not available"):
        await run(TaskTool(), description="x", prompt="y")


async def test_exit_plan_mode_asks_and_words_each_outcome() -> None:
    answers = iter(
        [
            PlanDecision("approved", "acceptEdits"),
            PlanDecision("keep_planning", "plan", "split step 2"),
            PlanDecision("not_planning", "default"),
            PlanDecision("unavailable", "plan", "one-shot mode"),
        ]
    )
    plans: list[str] = []

    async def approve(call_id: str, plan: str, cancel: AbortSignal) -> PlanDecision:
        plans.append(plan)
        return next(answers)

    tool = ExitPlanModeTool(approve)
    texts = [(await run(tool, plan="# Plan\n1. a\n2. b")).text for _ in range(4)]
    assert "approved your plan" in texts[0] and "acceptEdits" in texts[0]
    assert "keep planning" in texts[1] and "split step 2" in texts[1]
    assert "Plan mode is not on" in texts[2]
    assert "one-shot mode" in texts[3] and "final answer" in texts[3]
    assert plans == ["# Plan\n1. a\n2. b"] * 4
    assert tool.title({"plan": "# Plan\n1. a"}) == "Plan…"
    with pytest.raises(ToolError, match="not available"):
        await run(ExitPlanModeTool(), plan="x")


async def test_the_service_tools_get_the_shells_services() -> None:
    todos: list[Any] = []
    services = ToolServices(todo_changed=todos.append)
    tools = {t.name: t for t in create_tools(list(TOOL_FACTORIES), ".", services=services)}
    result: ToolResult = await run(
        tools["todo_write"], todos=[{"content": "a", "status": "pending"}]
    )
    assert result.details["todos"] and len(todos) == 1
    assert set(TOOL_FACTORIES) >= {"web_fetch", "todo_write", "task", "exit_plan_mode"}
