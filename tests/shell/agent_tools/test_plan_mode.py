"""Plan mode's end: exit_plan_mode puts the plan to the user through the approval mechanism."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pi_cli.modes.plain.approval import approval_prompt, parse_answer
from pi_cli.modes.rpc.ui import parse_response, request_line
from pi_cli.shell.events import PermissionModeChanged, PermissionRequested, PermissionResolved
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.agent_tools.conftest import RunPi, fake_args, make_shell, record, tool_texts

PLAN = "# Plan\n1. Add notes.txt\n2. Say done"


def exit_plan(call_id: str = "p1") -> ToolCallSpec:
    return ToolCallSpec("exit_plan_mode", {"plan": PLAN}, id=call_id)


def write(call_id: str) -> ToolCallSpec:
    return ToolCallSpec("write", {"path": "notes.txt", "content": "hi\n"}, id=call_id)


def answering(shell: Any, answer: Any) -> list[PermissionRequested]:
    asked: list[PermissionRequested] = []

    def on_event(event: Any) -> None:
        if isinstance(event, PermissionRequested):
            asked.append(event)
            shell.answer(event.id, answer)

    shell.subscribe(on_event)
    return asked


async def test_approving_switches_the_mode_and_the_run_goes_on(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(Turn(tool_calls=[exit_plan()]), Turn(tool_calls=[write("w1")]), Turn(text="done"))
    shell = make_shell(project, server, permission_mode="plan", approvals="interactive")
    events = record(shell)
    asked = answering(shell, "allow_session")
    await shell.submit("plan notes")
    await shell.wait_idle()
    (request,) = asked
    assert request.question == "Approve this plan?" and request.preview == PLAN
    assert request.options == ["allow_once", "allow_session", "deny"]
    assert request.labels is not None and "acceptEdits" in request.labels["allow_session"]
    assert shell.permissions.mode == "acceptEdits"
    assert [e.mode for e in events if isinstance(e, PermissionModeChanged)] == ["acceptEdits"]
    assert "approved your plan" in tool_texts(server.requests[1])[0]
    assert (project / "notes.txt").read_text() == "hi\n"  # edits run in acceptEdits
    assert len(server.requests) == 3
    await shell.aclose()


async def test_approve_once_means_default_mode(project: Path, server: FakeProviderServer) -> None:
    server.add(Turn(tool_calls=[exit_plan()]), Turn(text="starting"))
    shell = make_shell(project, server, permission_mode="plan", approvals="interactive")
    answering(shell, "allow_once")
    await shell.submit("plan")
    await shell.wait_idle()
    assert shell.permissions.mode == "default"
    await shell.aclose()


async def test_keep_planning_sends_the_feedback_and_stays_read_only(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(Turn(tool_calls=[exit_plan()]), Turn(tool_calls=[write("w1")]), Turn(text="ok"))
    shell = make_shell(project, server, permission_mode="plan", approvals="interactive")
    answering(shell, {"choice": "deny", "message": "also add tests"})
    await shell.submit("plan")
    await shell.wait_idle()
    text = tool_texts(server.requests[1])[0]
    assert "keep planning" in text and "also add tests" in text
    assert shell.permissions.mode == "plan"
    assert "plan mode is read-only" in tool_texts(server.requests[2])[1]
    assert not (project / "notes.txt").exists()
    await shell.aclose()


async def test_outside_plan_mode_nothing_is_asked(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(Turn(tool_calls=[exit_plan()]), Turn(text="ok"))
    shell = make_shell(project, server, approvals="interactive")
    asked = answering(shell, "allow_once")
    await shell.submit("go")
    await shell.wait_idle()
    assert asked == []
    assert "Plan mode is not on (the mode is auto)" in tool_texts(server.requests[1])[0]
    await shell.aclose()


def test_one_shot_cannot_approve_a_plan(server: FakeProviderServer, run_pi: RunPi) -> None:
    server.add(Turn(tool_calls=[exit_plan()]), Turn(text=PLAN))
    result = run_pi(*fake_args(server, "--permission-mode", "plan"), "plan notes")
    assert result.returncode == 7, result.stderr
    assert result.stdout == PLAN + "\n"
    assert "Nobody can approve a plan here" in tool_texts(server.requests[1])[0]


@pytest.fixture
def plan_request() -> PermissionRequested:
    from pi_cli.shell.agent_tools._plan_approval import LABELS

    return PermissionRequested(
        id="perm-9",
        tool_call_id="p1",
        tool_name="exit_plan_mode",
        title="the plan",
        preview=PLAN,
        options=["allow_once", "allow_session", "deny"],
        question="Approve this plan?",
        labels=dict(LABELS),
    )


def test_rpc_and_plain_show_the_plans_own_words(plan_request: PermissionRequested) -> None:
    line = request_line(plan_request, 120)
    assert line["title"] == "Approve this plan?"
    assert line["options"] == [
        "Approve: ask before edits (default mode)",
        "Approve: accept edits (acceptEdits mode)",
        "Keep planning",
    ]
    labels = plan_request.labels
    assert parse_response({"value": "keep planning"}, labels) == {"choice": "deny"}
    assert parse_response({"value": line["options"][1]}, labels) == {"choice": "allow_session"}
    prompt = approval_prompt(plan_request)
    assert "[s] Approve: accept edits" in prompt and "[n] Keep planning" in prompt
    answer = parse_answer("n split step one", plan_request)
    assert answer is not None and answer.choice == "deny" and answer.message == "split step one"


async def test_an_abort_while_the_plan_waits_ends_cleanly(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(Turn(tool_calls=[exit_plan()]))
    shell = make_shell(project, server, permission_mode="plan", approvals="interactive")
    events = record(shell)
    shell.subscribe(lambda e: shell.abort() if isinstance(e, PermissionRequested) else None)
    await shell.submit("plan")
    await shell.wait_idle()
    resolved = [e for e in events if isinstance(e, PermissionResolved)]
    assert resolved and resolved[0].by == "aborted" and resolved[0].allowed is False
    assert shell.permissions.mode == "plan" and not shell.busy
    await shell.aclose()
