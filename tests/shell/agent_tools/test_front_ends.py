"""The agent tools' events in the plain REPL's renderer, the one-shot progress and RPC state."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from rich.console import Console

from pi_cli.modes.json_writer import event_data
from pi_cli.modes.plain.render import PlainRenderer
from pi_cli.modes.rpc.views import state_of
from pi_cli.shell.events.agent_tools import SubagentEvent
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.agent_tools.conftest import RunPi, fake_args, make_shell, record

PLAN = [
    {"content": "Read the code", "status": "completed"},
    {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
]


def _script(server: FakeProviderServer) -> None:
    task = {
        "description": "look around",
        "prompt": "CHILD-P: list",
        "subagent_type": "general-purpose",
    }
    server.add(
        Turn(tool_calls=[ToolCallSpec("todo_write", {"todos": PLAN}, id="w1")]),
        Turn(tool_calls=[ToolCallSpec("task", task, id="t1")]),
        Turn(text="finished"),
    )
    server.routes["CHILD-P"] = [
        Turn(tool_calls=[ToolCallSpec("read", {"path": "nope.txt"}, id="c1")]),
        Turn(text="nothing there", chunk_size=3),
    ]


async def test_the_plain_renderer_prints_todos_and_sub_agents(
    project: Path, server: FakeProviderServer
) -> None:
    _script(server)
    shell = make_shell(project, server)
    out = io.StringIO()
    console = Console(file=out, width=120, color_system=None, force_terminal=False)
    shell.subscribe(PlainRenderer(console, shell))
    events = record(shell)
    await shell.submit("work")
    await shell.wait_idle()
    text = out.getvalue()
    assert "Todo 1/2\n  ✓ Read the code\n  ▸ Fixing the bug" in text
    assert "⤷ sub-agent general-purpose: look around (openai/fake-model)" in text
    assert "  ⤷ general-purpose ▸ read nope.txt" in text
    assert "    ✗ File not found: nope.txt" in text
    assert "⤷ general-purpose done · 2 turns" in text
    # The summary once, in the footer's formats: the result's "[agent …]" trailer is the model's.
    assert "[agent general-purpose" not in text
    assert re.search(r"⤷ general-purpose done · 2 turns · ↑\d+ ↓\d+ · \$0\.000\n", text)
    assert "$0.0000" not in text
    # JSON and RPC: a sub-agent's deltas stay deltas (never its whole partial message).
    updates = [
        event_data(e)
        for e in events
        if isinstance(e, SubagentEvent) and e.event.type == "message_update"
    ]
    assert updates and all("message" not in u["event"] for u in updates)
    assert updates[0]["taskId"] == "t1" and updates[0]["agent"] == "general-purpose"
    state = state_of(shell)
    assert state["todos"] == PLAN
    await shell.aclose()


def test_one_shot_progress_names_the_childs_calls(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    _script(server)
    result = run_pi(*fake_args(server), "work")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "finished\n"
    assert "→ task look around" in result.stderr
    assert "  ⤷ general-purpose → read nope.txt" in result.stderr


def test_json_mode_sub_agent_lines(server: FakeProviderServer, run_pi: RunPi) -> None:
    _script(server)
    result = run_pi(*fake_args(server, "--mode", "json"), "work")
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    kinds = [line["type"] for line in lines]
    start = lines[kinds.index("subagent_start")]
    assert start == {
        "type": "subagent_start",
        "taskId": "t1",
        "agent": "general-purpose",
        "description": "look around",
        "model": "openai/fake-model",
    }
    inner = [line["event"]["type"] for line in lines if line["type"] == "subagent_event"]
    assert inner[0] == "agent_start" and inner[-1] == "agent_end" and "turn_start" in inner
    end = lines[kinds.index("subagent_end")]
    assert end["answer"] == "nothing there" and end["turns"] == 2
    assert set(end["usage"]) == {"input", "output", "cacheRead", "cacheWrite", "cost"}
    assert kinds.index("subagent_start") < kinds.index("subagent_end")
