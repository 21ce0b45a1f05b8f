"""``--goal`` with ``--mode rpc`` (a real pi process, commands on stdin): the goal is pursued
round after round until its check passes, and a client sees it on the wire (``goal_changed``,
``goal_checked``); the client leaving (EOF) does not cut the pursuit short."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.agent_tools.conftest import RunPi, fake_args

CHECK = "test -f ok.txt"


def test_a_goal_over_rpc_is_pursued_until_its_check_passes(
    server: FakeProviderServer, run_pi: RunPi, project: Path
) -> None:
    write = ToolCallSpec("write", {"path": "ok.txt", "content": "done\n"}, id="w1")
    server.add(
        Turn(text="round one: not there yet"),
        Turn(tool_calls=[write]),
        Turn(text="round two: wrote ok.txt"),
    )
    commands = [
        {"type": "get_front_state", "id": "s"},
        {"type": "prompt", "id": "p", "message": "make ok.txt appear"},
    ]
    args = fake_args(server, "--mode", "rpc", "--goal", "ok.txt exists", "--goal-check", CHECK)
    result = run_pi(*args, input="".join(json.dumps(c) + "\n" for c in commands), timeout=90)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    checks = [x for x in lines if x.get("type") == "goal_checked"]
    assert [(c["round"], c["met"], c["by"]) for c in checks] == [
        (1, False, "check"),
        (2, True, "check"),
    ]
    states = [x["goal"]["status"] for x in lines if x.get("type") == "goal_changed" and x["goal"]]
    assert states[0] == "pursuing" and states[-1] == "met"
    assert (project / "ok.txt").read_text() == "done\n"
    front = next(x for x in lines if x.get("type") == "response" and x.get("id") == "s")
    assert front["success"] and front["data"]["goal"]["condition"] == "ok.txt exists", front
    assert front["data"]["goal"]["check"] == CHECK
