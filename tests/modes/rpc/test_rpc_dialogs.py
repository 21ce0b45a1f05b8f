"""Dialogs and extension UI over RPC: pi's ``extension_ui_request`` shapes out, answers in."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pi_cli.modes.rpc.ui import RpcApprovals
from pi_cli.shell import CodingAgent, Notice, ShellOptions
from tests.agent_core.scripted_stream import ScriptedStream


@pytest.fixture
def rpc(tmp_path: Path) -> tuple[CodingAgent, RpcApprovals, list[dict[str, Any]]]:
    shell = CodingAgent(
        ShellOptions(
            cwd=tmp_path, stream_fn=ScriptedStream(), tool_objects=[], approvals="remote",
            persist_session=False,
        )
    )  # fmt: skip
    lines: list[dict[str, Any]] = []
    approvals = RpcApprovals(shell, lines.append)
    shell.subscribe(approvals.on_event)
    return shell, approvals, lines


async def asked(lines: list[dict[str, Any]]) -> dict[str, Any]:
    while not any(line.get("method") in ("select", "confirm", "input", "editor") for line in lines):
        await asyncio.sleep(0)
    return lines[-1]


async def test_select_goes_out_in_pis_shape_and_pis_value_answers_it(rpc: Any) -> None:
    shell, approvals, lines = rpc
    task = asyncio.ensure_future(
        shell.dialogs.select(
            "Deploy where?", [("staging", "safe"), "production"], message="Pick.", source="ext x"
        )
    )
    request = await asked(lines)
    assert request == {
        "type": "extension_ui_request",
        "id": "dialog-1",
        "method": "select",
        "title": "Deploy where?",
        "message": "Pick.",
        "options": ["staging", "production"],
        "optionDetails": [
            {"label": "staging", "description": "safe"},
            {"label": "production", "description": ""},
        ],
        "multiple": False,
        "allowOther": False,
        "timeout": 120000,
        "source": "ext x",
    }
    assert approvals.handle({"type": "extension_ui_response", "id": "dialog-1"}) == (
        '"value", "values", "other", "confirmed" or "cancelled" is required'
    )
    refused = approvals.handle({"id": "dialog-1", "value": "moon"})
    assert refused is not None and "not one of the options" in refused
    assert approvals.handle({"id": "dialog-1", "value": "production"}) is None
    assert (await task).values == ("production",)
    assert approvals.handle({"id": "dialog-1", "value": "production"}) == (
        "No pending request 'dialog-1': it was answered first; this answer was not used"
    )
    assert approvals.handle({"id": "dialog-9", "value": "x"}) == "No pending request 'dialog-9'"


async def test_confirm_input_editor_and_cancel(rpc: Any) -> None:
    shell, approvals, lines = rpc
    task = asyncio.ensure_future(shell.dialogs.confirm("Clear?", "All is lost."))
    request = await asked(lines)
    assert {k: request[k] for k in ("method", "title", "message")} == {
        "method": "confirm",
        "title": "Clear?",
        "message": "All is lost.",
    }
    assert approvals.handle({"id": request["id"], "confirmed": True}) is None
    assert await task is True
    lines.clear()
    text = asyncio.ensure_future(shell.dialogs.input("Name", placeholder="you", default="pi"))
    request = await asked(lines)
    assert (request["placeholder"], request["prefill"]) == ("you", "pi")
    assert approvals.handle({"id": request["id"], "cancelled": True}) is None
    assert await text is None
    lines.clear()
    edited = asyncio.ensure_future(shell.dialogs.editor("Notes", default="a"))
    request = await asked(lines)
    assert request["method"] == "editor" and request["prefill"] == "a"
    assert approvals.handle({"id": request["id"], "value": "a\nb"}) is None
    assert await edited == "a\nb"


async def test_multiple_choice_and_an_own_answer(rpc: Any) -> None:
    shell, approvals, lines = rpc
    task = asyncio.ensure_future(
        shell.dialogs.select("Which?", ["a", "b"], multiple=True, allow_other=True)
    )
    request = await asked(lines)
    assert request["multiple"] is True and request["allowOther"] is True
    assert approvals.handle({"id": request["id"], "values": ["b"], "other": "c"}) is None
    answer = await task
    assert (answer.values, answer.other) == (("b",), "c")


async def test_ui_pieces_and_notifications_are_pis_fire_and_forget_requests(rpc: Any) -> None:
    shell, _, lines = rpc
    shell.dialogs.set_ui("footer", "git.branch", text="main")
    shell.dialogs.set_ui("status", "demo.turns", text="Turn 2")
    shell.dialogs.set_ui("panel", "todo.list", lines=["a", "b"])
    shell.dialogs.set_ui("panel", "todo.list")
    shell.emit(Notice(text="Blocked", level="warning", source="extension guard"))
    shell.notify("pi's own notice")  # not an extension's: no notify request
    shapes = [{k: v for k, v in line.items() if k != "id"} for line in lines]
    assert shapes == [
        {"type": "extension_ui_request", "slot": "footer", "method": "setStatus",
         "statusKey": "git.branch", "statusText": "main"},
        {"type": "extension_ui_request", "slot": "status", "method": "setWidget",
         "widgetKey": "demo.turns", "widgetPlacement": "belowEditor", "widgetLines": ["Turn 2"]},
        {"type": "extension_ui_request", "slot": "panel", "method": "setWidget",
         "widgetKey": "todo.list", "widgetPlacement": "aboveEditor", "widgetLines": ["a", "b"]},
        {"type": "extension_ui_request", "slot": "panel", "method": "setWidget",
         "widgetKey": "todo.list", "widgetPlacement": "aboveEditor"},
        {"type": "extension_ui_request", "method": "notify", "message": "Blocked",
         "notifyType": "warning", "source": "extension guard"},
    ]  # fmt: skip


async def test_a_client_that_never_answers_does_not_hang_the_asker(tmp_path: Path) -> None:
    from pi_cli.shell.config.settings import Settings

    settings = Settings.model_validate({"permissions": {"approvalTimeoutS": 0.05}})
    shell = CodingAgent(
        ShellOptions(cwd=tmp_path, stream_fn=ScriptedStream(), tool_objects=[], approvals="remote",
                     persist_session=False, settings=settings)
    )  # fmt: skip
    assert await shell.dialogs.confirm("Anyone?") is False


async def test_a_memory_note_is_asked_over_rpc_and_saved(rpc: Any, tmp_path: Path) -> None:
    """``# note`` as an RPC prompt: pi's select request, the client's answer, the file."""
    shell, approvals, lines = rpc
    result = shell.submit("# the staging db is read-only")
    request = await asked(lines)
    assert request["title"] == "Save this note to which memory file?"
    assert request["options"] == ["Project memory", "User memory"]
    assert request["message"] == "- the staging db is read-only" and request["source"] == "memory"
    assert approvals.handle({"id": request["id"], "value": "Project memory"}) is None
    done = await result
    assert done is not None and not done.error
    assert (tmp_path / "AGENTS.md").read_text() == "- the staging db is read-only\n"
    assert "- the staging db is read-only" in shell.agent.system_prompt
