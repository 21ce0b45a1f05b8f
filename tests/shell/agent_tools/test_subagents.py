"""The task tool through the shell and the fake provider: parallel children, abort, profiles."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from agent_core import ToolExecutionEnd, TurnStart
from pi_cli.shell.agent_tools._subagents import SUBAGENT_NOTE
from pi_cli.shell.events.agent_tools import SubagentEnded, SubagentEvent, SubagentStarted
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn, UsageSpec
from tests.shell.agent_tools.conftest import make_shell, record, tool_names, tool_texts


def task(call_id: str, prompt: str, agent: str = "general-purpose", label: str = "look") -> Any:
    args = {"description": label, "prompt": prompt, "subagent_type": agent}
    return ToolCallSpec("task", args, id=call_id)


def _child_requests(server: FakeProviderServer, key: str) -> list[dict[str, Any]]:
    return [
        body
        for body in server.requests
        if any(m["role"] == "user" and key in str(m["content"]) for m in body["messages"][:2])
    ]


async def test_two_children_run_in_parallel_and_report_answer_and_cost(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(
        Turn(tool_calls=[task("t1", "CHILD-A: list the files"), task("t2", "CHILD-B: the name")]),
        Turn(text="Both reported."),
    )
    server.routes["CHILD-A"] = [
        Turn(tool_calls=[ToolCallSpec("ls", {}, id="a1")], usage=UsageSpec(input=100, output=10)),
        Turn(text="A: two files", chunk_size=2, chunk_delay_s=0.05, usage=UsageSpec(200, 20)),
    ]
    server.routes["CHILD-B"] = [Turn(text="B: it is hello", usage=UsageSpec(input=50, output=5))]
    shell = make_shell(project, server, tools=["read", "ls", "task", "todo_write"])
    events = record(shell)
    await shell.submit("split the work")
    await shell.wait_idle()

    starts = [i for i, e in enumerate(events) if isinstance(e, SubagentStarted)]
    ends = [i for i, e in enumerate(events) if isinstance(e, SubagentEnded)]
    assert len(starts) == len(ends) == 2
    assert max(starts) < min(ends)  # both were running at once
    a_end = next(e for e in events if isinstance(e, SubagentEnded) and e.task_id == "t1")
    assert a_end.answer == "A: two files" and a_end.turns == 2 and a_end.error_message is None
    assert a_end.usage["input"] == 300 and a_end.usage["output"] == 30
    child_turns = [
        e for e in events if isinstance(e, SubagentEvent) and isinstance(e.event, TurnStart)
    ]
    assert sorted(e.task_id for e in child_turns) == ["t1", "t1", "t2"]

    first_a = _child_requests(server, "CHILD-A")[0]
    assert [m["role"] for m in first_a["messages"]] == ["system", "user"]  # its own context
    assert SUBAGENT_NOTE in first_a["messages"][0]["content"]
    assert tool_names(first_a) == ["ls", "read"]  # never task or todo_write
    results = tool_texts(server.requests[-1])
    assert results[0].startswith(
        "A: two files\n\n[agent general-purpose · openai/fake-model · 2 turns"
    )
    assert results[1].startswith("B: it is hello")
    # The session's usage counts the children (10+5 parent tokens are the fake's default).
    assert shell.usage.input == 10 + 10 + 300 + 50
    await shell.aclose()


async def test_abort_reaches_both_children(project: Path, server: FakeProviderServer) -> None:
    server.add(Turn(tool_calls=[task("t1", "CHILD-A: wait"), task("t2", "CHILD-B: wait")]))
    server.routes.update({"CHILD-A": [Turn(hang=True)], "CHILD-B": [Turn(hang=True)]})
    shell = make_shell(project, server, tools=["read", "task"])
    events = record(shell)
    run = shell.submit("wait for both")
    deadline = time.monotonic() + 20
    while len(server.requests) < 3 and time.monotonic() < deadline:
        await asyncio.sleep(0.02)  # the parent's call, then both children's
    assert len(server.requests) == 3
    started = time.monotonic()
    shell.abort()
    await run
    await shell.wait_idle()
    assert time.monotonic() - started < 5
    ended = {e.task_id: e for e in events if isinstance(e, SubagentEnded)}
    assert set(ended) == {"t1", "t2"} and all(e.error_message == "aborted" for e in ended.values())
    results = [e for e in events if isinstance(e, ToolExecutionEnd) and e.tool_name == "task"]
    assert len(results) == 2 and all(r.is_error for r in results)
    assert shell.messages[-1].role == "toolResult" or shell.messages[-1].stop_reason == "aborted"
    assert not shell.busy
    await shell.aclose()


def _profile(project: Path, folder: str, name: str, body: str, **fields: str) -> None:
    directory = project / folder / "agents"
    directory.mkdir(parents=True, exist_ok=True)
    head = "".join(f"{k}: {v}\n" for k, v in {"name": name, **fields}.items())
    (directory / f"{name}.md").write_text(f"---\n{head}---\n{body}\n")


async def test_a_profile_sets_prompt_tools_and_model(
    project: Path, server: FakeProviderServer
) -> None:
    _profile(
        project,
        ".claude",
        "reviewer",
        "You review code. Be strict.",
        description="Reviews a change",
        tools="Read, Grep, WebSearch",
        model="haiku",
    )
    server.add(Turn(tool_calls=[task("t1", "CHILD-R: review x", "reviewer")]), Turn(text="ok"))
    server.routes["CHILD-R"] = [Turn(text="looks fine")]
    shell = make_shell(project, server, trust=True)
    events = record(shell)
    assert [p.name for p in shell.agent_tools.profiles] == ["reviewer"]
    warnings = [n.text for n in shell.startup_notices if n.level == "warning"]
    assert any("tool 'WebSearch' is unknown to pi" in w for w in warnings)
    task_tool = next(t for t in shell.tools if t.name == "task")
    assert "- reviewer: Reviews a change" in task_tool.description
    await shell.submit("review")
    await shell.wait_idle()
    body = _child_requests(server, "CHILD-R")[0]
    assert body["model"] == "gpt-5-mini"  # haiku at the configured provider (OpenAI)
    assert body["messages"][0]["content"].startswith("You review code. Be strict.")
    assert tool_names(body) == ["grep", "read"]
    started = next(e for e in events if isinstance(e, SubagentStarted))
    assert started.model == "openai/gpt-5-mini"
    await shell.aclose()


async def test_profiles_of_an_untrusted_folder_are_not_loaded(
    project: Path, server: FakeProviderServer, pi_home: Path
) -> None:
    _profile(project, ".pi", "evil", "Run everything.", description="x", tools="Bash")
    (pi_home / "agents").mkdir()
    (pi_home / "agents" / "mine.md").write_text("---\ndescription: Mine\n---\nMy prompt.\n")
    (pi_home / "agents" / "broken.md").write_text(
        "---\nname: Broken Name\ndescription: d\n---\nx\n"
    )
    shell = make_shell(project, server)
    assert [p.name for p in shell.agent_tools.profiles] == ["mine"]
    warnings = [n.text for n in shell.startup_notices if n.level == "warning"]
    assert any("Untrusted folder" in w and ".pi/agents/evil.md" in w for w in warnings)
    assert any("broken.md" in w and "not lower-case" in w for w in warnings)
    server.add(Turn(tool_calls=[task("t1", "CHILD-X: go", "evil")]), Turn(text="done"))
    await shell.submit("go")
    await shell.wait_idle()
    assert "Unknown subagent_type 'evil'" in tool_texts(server.requests[1])[0]
    await shell.aclose()


async def test_a_childs_calls_meet_the_same_permissions(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(Turn(tool_calls=[task("t1", "CHILD-W: write")]), Turn(text="reported"))
    server.routes["CHILD-W"] = [
        Turn(tool_calls=[ToolCallSpec("bash", {"command": "touch made"}, id="w1")]),
        Turn(text="could not"),
    ]
    shell = make_shell(project, server, disallowed_tools=["Bash(touch:*)"])
    await shell.submit("go")
    await shell.wait_idle()
    child = _child_requests(server, "CHILD-W")
    assert "denied by the permission rule Bash(touch:*)" in tool_texts(child[1])[0]
    assert not (project / "made").exists()
    await shell.aclose()


async def test_a_failing_child_is_an_error_result(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(Turn(tool_calls=[task("t1", "CHILD-F: go")]), Turn(text="noted"))
    server.routes["CHILD-F"] = [Turn(status=400, error_message="bad request from child")]
    shell = make_shell(project, server)
    events = record(shell)
    await shell.submit("go")
    await shell.wait_idle()
    end = next(e for e in events if isinstance(e, ToolExecutionEnd) and e.tool_name == "task")
    assert end.is_error and "The sub-agent failed" in end.result.text
    assert "bad request from child" in end.result.text
    wire = json.dumps([e.model_dump(mode="json") for e in events if isinstance(e, SubagentEnded)])
    assert "bad request from child" in wire
    await shell.aclose()


def test_a_profile_change_makes_a_trust_decision_stale(project: Path) -> None:
    from pi_cli.shell.config.trust import check_trust, record_trust

    _profile(project, ".pi", "helper", "Help.", description="Helps")
    record_trust(project, True)
    assert check_trust(project).stored is True
    (project / ".pi" / "agents" / "helper.md").write_text(
        "---\nname: helper\ndescription: Helps\ntools: Bash\n---\nRun anything.\n"
    )
    check = check_trust(project)
    assert check.stored is None and check.changed  # asked again
    assert any("agent profiles" in item and "helper.md" in item for item in check.items)
