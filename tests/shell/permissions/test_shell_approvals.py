"""Approvals as shell events: a steer typed meanwhile is kept; lifecycle hooks see them."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from pi_cli.shell.coding_agent import CodingAgent, ShellOptions
from pi_cli.shell.config.settings import Settings
from pi_cli.shell.events import PermissionModeChanged, PermissionRequested, PermissionResolved
from tests.agent_core.scripted_stream import ScriptedStream, reply, text, tool_call


def shell_with(tmp_path: Path, stream: ScriptedStream, **options: Any) -> CodingAgent:
    work = tmp_path / "project"
    work.mkdir(exist_ok=True)
    return CodingAgent(
        ShellOptions(
            cwd=work, stream_fn=stream, tools=["bash", "write"], approvals="interactive", **options
        )
    )


async def test_a_steer_typed_while_an_approval_waits_is_kept(tmp_path: Path) -> None:
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "touch x"})), reply(text("ok"))
    )
    shell = shell_with(tmp_path, stream)
    asked: list[PermissionRequested] = []

    def on_event(event: Any) -> None:
        if isinstance(event, PermissionRequested):
            asked.append(event)
            shell.submit("use y instead", "steer")  # typed while the question is open
            shell.answer(event.id, "allow_once")

    shell.subscribe(on_event)
    await shell.submit("go")
    await shell.wait_idle()
    assert len(asked) == 1 and asked[0].title == "$ touch x" and asked[0].preview == "touch x"
    assert (shell.cwd / "x").exists()
    assert stream.user_texts(1) == ["go", "use y instead"]


async def test_an_unoffered_answer_is_refused_and_modes_cycle(tmp_path: Path) -> None:
    stream = ScriptedStream(
        reply(tool_call("c1", "write", {"path": ".pi/settings.json", "content": "{}"})),
        reply(text("ok")),
    )
    shell = shell_with(tmp_path, stream)
    events: list[Any] = []

    def on_event(event: Any) -> None:
        events.append(event)
        if isinstance(event, PermissionRequested):
            assert event.options == ["allow_once", "deny"]  # protected: nothing to remember
            try:
                shell.answer(event.id, "allow_always")
            except ValueError:
                shell.answer(event.id, {"choice": "deny", "message": "not there"})

    shell.subscribe(on_event)
    await shell.submit("write config")
    resolved = [e for e in events if isinstance(e, PermissionResolved)]
    assert resolved[0].allowed is False and resolved[0].message == "not there"
    assert not (shell.cwd / ".pi" / "settings.json").exists()
    assert shell.permissions.mode == "auto"
    assert [shell.permissions.cycle() for _ in range(4)] == [
        "default",
        "acceptEdits",
        "plan",
        "auto",
    ]
    assert [e.mode for e in events if isinstance(e, PermissionModeChanged)][-1] == "auto"
    result = await shell.submit("/permissions yolo")
    assert result is not None and result.output == "Permission mode: bypassPermissions"
    summary = await shell.submit("/permissions")
    assert summary is not None and "Mode: bypassPermissions" in (summary.output or "")


async def test_lifecycle_hooks_see_claude_code_fields(tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    record = f"{sys.executable} -c \"import sys; open({str(log)!r}, 'a').write(sys.stdin.read() + '\\n')\""
    hooks = {
        event: [{"hooks": [{"type": "command", "command": record}]}]
        for event in ("SessionStart", "PreCompact", "Notification", "SessionEnd", "Stop")
    }
    stream = ScriptedStream(
        reply(tool_call("c1", "bash", {"command": "touch n"})),
        reply(text("ok")),
        reply(text("summary")),
    )
    shell = shell_with(tmp_path, stream, settings=Settings.model_validate({"hooks": hooks}))
    shell.subscribe(
        lambda e: isinstance(e, PermissionRequested) and shell.answer(e.id, "allow_once")
    )
    await shell.submit("go")
    await shell.wait_idle()
    try:
        await shell.compact()
    except Exception:  # noqa: BLE001 - "nothing to compact" is fine: PreCompact ran first
        pass
    await shell.aclose()
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    by_name = {e["hook_event_name"]: e for e in seen}
    assert by_name["SessionStart"]["source"] == "startup"
    assert by_name["Notification"]["notification_type"] == "permission_prompt"
    assert "bash" in by_name["Notification"]["message"]
    assert by_name["Stop"]["stop_hook_active"] is False
    assert by_name["PreCompact"]["trigger"] == "manual"
    assert by_name["SessionEnd"]["reason"] == "other"
    assert {e["session_id"] for e in seen} == {shell.session.session_id}
    assert all(e["permission_mode"] == "auto" for e in seen)
