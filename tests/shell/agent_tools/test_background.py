"""Background sub-agents through the shell and the fake provider: delivery at turn boundaries,
a run of their own when idle, /agents (list, show, steer, abort), the session, quitting."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent_core import ToolExecutionStart
from pi_cli.shell.coding_agent import CodingAgent
from pi_cli.shell.events.agent_tools import BackgroundAgentChanged, SubagentEnded, SubagentStarted
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn, UsageSpec
from tests.shell.agent_tools.conftest import make_shell, record


def bg_task(call_id: str, prompt: str, label: str = "look") -> ToolCallSpec:
    args = {"description": label, "prompt": prompt, "background": True}
    return ToolCallSpec("task", args, id=call_id)


def wait_file(name: str) -> str:
    """A bash command that returns once ``name`` exists (the test creates it)."""
    return f"while [ ! -e {name} ]; do sleep 0.02; done; echo released {name}"


def bash(call_id: str, command: str) -> ToolCallSpec:
    return ToolCallSpec("bash", {"command": command}, id=call_id)


async def until(condition: Callable[[], object], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def roles_and_texts(body: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    for message in body["messages"]:
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        out.append((message["role"], str(content or "")))
    return out


def shell_for(project: Path, server: FakeProviderServer, **options: Any) -> CodingAgent:
    options.setdefault("tools", ["read", "ls", "bash", "task"])
    options.setdefault("skip_permissions", True)
    return make_shell(project, server, **options)


async def test_report_arrives_at_the_next_turn_boundary_while_the_parent_works(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(
        Turn(tool_calls=[bg_task("t1", "CHILD-A: count the files")]),
        Turn(tool_calls=[bash("b1", wait_file("release"))]),
        Turn(text="Parent saw the report."),
    )
    server.routes["CHILD-A"] = [
        Turn(tool_calls=[bash("a1", wait_file("child-go"))], usage=UsageSpec(100, 10)),
        Turn(text="CHILD-A says: two files", usage=UsageSpec(200, 20)),
    ]
    shell = shell_for(project, server)
    events = record(shell)
    run = shell.submit("work while it looks")
    # The child ends while the parent's bash call is still running: its report waits.
    await until(
        lambda: any(isinstance(e, ToolExecutionStart) and e.tool_call_id == "b1" for e in events),
        "the parent's bash call",
    )
    (project / "child-go").touch()
    await until(lambda: any(isinstance(e, SubagentEnded) for e in events), "the child's end")
    assert shell.state == "running"
    assert [item.origin for item in shell.queued()] == ["agent:a1"]
    (project / "release").touch()
    await run
    await shell.wait_idle()

    parent = [b for b in server.requests if "work while it looks" in str(b["messages"][1])]
    assert len(parent) == 3
    first_result = roles_and_texts(parent[1])[-1]
    assert first_result[0] == "tool" and "Started background agent a1" in first_result[1]
    last = roles_and_texts(parent[2])
    # After the bash result, not inside the batch: the report is the next user message.
    assert last[-2][0] == "tool" and "released release" in last[-2][1]
    assert last[-1][0] == "user"
    assert last[-1][1].startswith("[background agent a1 (general-purpose: look) finished · 2 turns")
    assert last[-1][1].endswith("CHILD-A says: two files")
    started = next(e for e in events if isinstance(e, SubagentStarted))
    assert started.background and started.task_id == "t1"
    infos = shell.agent_tools.background.infos()
    assert [(i.id, i.status, i.turns, i.delivered) for i in infos] == [("a1", "done", 2, True)]
    assert infos[0].usage["input"] == 300
    assert not shell.queued()
    await shell.aclose()


async def test_an_idle_parent_is_woken_by_the_report(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(
        Turn(tool_calls=[bg_task("t1", "CHILD-A: wait for it")]),
        Turn(text="Started; I will tell you."),
        Turn(text="The child is done: it waited."),
    )
    server.routes["CHILD-A"] = [
        Turn(tool_calls=[bash("c1", wait_file("go"))]),
        Turn(text="waited"),
    ]
    shell = shell_for(project, server)
    events = record(shell)
    await shell.submit("start it")
    await shell.wait_idle()
    assert shell.state == "idle"
    assert [i.status for i in shell.agent_tools.background.infos()] == ["running"]
    (project / "go").touch()
    await until(lambda: len([b for b in server.requests if "start it" in str(b)]) == 3, "a run")
    await until(lambda: not shell.busy, "the woken run's end")
    woken = roles_and_texts([b for b in server.requests if "start it" in str(b)][-1])
    assert woken[-1][0] == "user" and woken[-1][1].endswith("waited")
    assert shell.messages[-1].text == "The child is done: it waited."
    changes = [e.agent.status for e in events if isinstance(e, BackgroundAgentChanged)]
    assert changes[0] == "running" and changes[-1] == "done"
    await shell.aclose()


async def test_two_children_one_aborted_from_agents(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(
        Turn(tool_calls=[bg_task("t1", "CHILD-A: slow", "slow"), bg_task("t2", "CHILD-B: ok")]),
        Turn(text="Both started."),
        Turn(text="noted one"),
        Turn(text="noted two"),
    )
    server.routes["CHILD-A"] = [Turn(tool_calls=[bash("c1", "sleep 600")])]
    server.routes["CHILD-B"] = [
        Turn(tool_calls=[bash("c2", wait_file("b-go"))]),
        Turn(text="B finished"),
    ]
    shell = shell_for(project, server)
    await shell.submit("start both")
    await shell.wait_idle()
    background = shell.agent_tools.background
    await until(lambda: len(server.requests) >= 4, "both children's first calls")
    listing = await shell.submit("/agents")
    assert listing is not None and listing.output is not None
    lines = listing.output.splitlines()
    assert lines[0].startswith("a1   running     general-purpose: slow · 1 turn")
    assert lines[1].startswith("a2   running     general-purpose: look · 1 turn")
    shown = await shell.submit("/agents show a1")
    assert shown is not None and "› CHILD-A: slow" in (shown.output or "")
    stopped = await shell.submit("/agents abort a1")
    assert stopped is not None and not stopped.error
    await until(lambda: background.get("a1").info.status == "aborted", "a1 stopped")
    await until(lambda: not shell.busy and len(server.requests) >= 5, "the report's run")
    await shell.wait_idle()
    assert background.get("a2").info.status == "running"  # the other one goes on
    (project / "b-go").touch()
    await until(lambda: background.get("a2").info.status == "done", "a2 done")
    await until(lambda: not shell.busy and shell.messages[-1].text == "noted two", "its report")
    reports = [m.text for m in shell.messages if m.role == "user" and "background" in m.text]
    assert reports[0].startswith("[background agent a1 (general-purpose: slow) was stopped")
    assert reports[1].endswith("B finished")
    again = await shell.submit("/agents abort a1")
    assert again is not None and again.error and "aborted" in (again.output or "")
    await shell.aclose()


async def test_quitting_records_running_children_as_interrupted_and_resume_lists_them(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(
        Turn(tool_calls=[bg_task("t1", "CHILD-A: quick"), bg_task("t2", "CHILD-B: forever")]),
        Turn(text="Started."),
        Turn(text="Got A."),
    )
    server.routes["CHILD-A"] = [Turn(text="A is quick")]
    server.routes["CHILD-B"] = [Turn(tool_calls=[bash("c1", "sleep 600; echo never")])]
    shell = shell_for(project, server, persist_session=True)
    await shell.submit("start them")
    background = shell.agent_tools.background
    await until(lambda: background.get("a1").info.status == "done", "a1's report")
    await until(lambda: len(server.requests) >= 4 and not shell.busy, "the parent's runs")
    await shell.wait_idle()
    await shell.aclose()
    assert background.get("a2").info.status == "interrupted"
    resumed = shell_for(project, server, persist_session=True, continue_session=True)
    statuses = {i.id: i.status for i in resumed.agent_tools.background.infos()}
    assert statuses == {"a1": "done", "a2": "interrupted"}
    shown = await resumed.submit("/agents show a1")
    assert shown is not None and "A is quick" in (shown.output or "")
    await resumed.aclose()


async def test_a_childs_approval_names_it_and_applies_to_it(
    project: Path, server: FakeProviderServer
) -> None:
    from pi_cli.shell.events import PermissionRequested

    server.add(
        Turn(tool_calls=[bg_task("t1", "CHILD-A: make files", "maker")]),
        Turn(text="Started."),
        Turn(text="Noted."),
    )
    server.routes["CHILD-A"] = [
        Turn(tool_calls=[bash("c1", "touch made-by-child")]),
        Turn(tool_calls=[bash("c2", "touch refused-for-child")]),
        Turn(text="one made, one refused"),
    ]
    shell = make_shell(
        project, server, tools=["bash", "task"], approvals="interactive", permission_mode="default"
    )
    asked: list[PermissionRequested] = []

    def on_event(event: Any) -> None:
        if isinstance(event, PermissionRequested):
            asked.append(event)
            shell.answer(event.id, "allow_once" if len(asked) == 1 else "deny")

    shell.subscribe(on_event)
    await shell.submit("make them")
    background = shell.agent_tools.background
    await until(lambda: background.get("a1").info.status == "done", "the child's end")
    await until(lambda: not shell.busy and len(server.requests) >= 6, "its report's run")
    await shell.wait_idle()
    assert [a.agent for a in asked] == ["background agent a1 (general-purpose)"] * 2
    assert asked[0].question == (
        "background agent a1 (general-purpose) asks: allow bash: $ touch made-by-child?"
    )
    assert (project / "made-by-child").exists() and not (project / "refused-for-child").exists()
    assert shell.messages[-2].text.endswith("one made, one refused")
    await shell.aclose()


async def test_two_children_in_their_own_worktrees_write_the_same_file_one_aborted(
    project: Path, server: FakeProviderServer
) -> None:
    import subprocess

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=project, capture_output=True, text=True)
        return done.stdout

    git("init", "-q", "-b", "main")
    git("-c", "user.email=t@e", "-c", "user.name=T", "add", ".")
    git("-c", "user.email=t@e", "-c", "user.name=T", "commit", "-qm", "seed")

    def worker(call_id: str, prompt: str) -> ToolCallSpec:
        args = {"description": prompt[:7], "prompt": prompt, "background": True, "worktree": True}
        return ToolCallSpec("task", args, id=call_id)

    server.add(
        Turn(tool_calls=[worker("t1", "CHILD-A: write notes"), worker("t2", "CHILD-B: write")]),
        Turn(text="Both started."),
        Turn(text="one"),
        Turn(text="two"),
    )
    write = lambda text, i: ToolCallSpec("write", {"path": "notes.txt", "content": text}, id=i)  # noqa: E731
    server.routes["CHILD-A"] = [Turn(tool_calls=[write("from A\n", "w1")]), Turn(text="A wrote")]
    server.routes["CHILD-B"] = [
        Turn(tool_calls=[write("from B\n", "w2")]),
        Turn(tool_calls=[bash("c2", "sleep 600")]),
    ]
    shell = shell_for(project, server, tools=["read", "write", "bash", "task"])
    await shell.submit("split it")
    background = shell.agent_tools.background
    await until(lambda: background.get("a1").info.status == "done", "a1's end")
    await until(lambda: background.get("a2").info.last_tool.startswith("bash"), "b's sleep")
    stopped = await shell.submit("/agents abort a2")
    assert stopped is not None and not stopped.error
    await until(lambda: background.get("a2").info.status == "aborted", "a2 stopped")
    await until(lambda: not shell.busy and len(server.requests) >= 8, "both reports' runs")
    await shell.wait_idle()
    reports = [m.text for m in shell.messages if m.role == "user" and "background" in m.text]
    trees = sorted(project.parent.glob("project-agent-*"))
    assert len(trees) == 2  # both kept: each left a change
    assert sorted((t / "notes.txt").read_text() for t in trees) == ["from A\n", "from B\n"]
    assert not (project / "notes.txt").exists()  # the main checkout is untouched
    a_report = next(r for r in reports if "(general-purpose: CHILD-A)" in r)
    assert "A wrote" in a_report and "1 uncommitted file (notes.txt)" in a_report
    assert "branch worktree-agent-" in a_report
    b_report = next(r for r in reports if "was stopped by the user" in r)
    assert "1 uncommitted file (notes.txt)" in b_report
    await shell.aclose()


async def test_a_worktree_outside_a_git_repository_is_a_clear_error(
    project: Path, server: FakeProviderServer
) -> None:
    args = {"description": "x", "prompt": "CHILD-A: x", "worktree": True}
    server.add(Turn(tool_calls=[ToolCallSpec("task", args, id="t1")]), Turn(text="ok"))
    shell = shell_for(project, server)
    await shell.submit("try")
    await shell.wait_idle()
    result = roles_and_texts(server.requests[-1])[-1]
    assert result[0] == "tool" and "worktree: true needs a git repository" in result[1]
    assert "not in a git repository" in result[1]
    assert sorted(p.name for p in project.parent.iterdir()) == ["project"]
    await shell.aclose()
