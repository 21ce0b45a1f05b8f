"""``--goal`` in one-shot and JSON mode through the fake provider: met by a check command on
round 3, met by the judge, unmet, and ended by each budget (exit 5, state budget-limited)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.agent_tools.conftest import RunPi, fake_args

CHECK = "echo checking round; test -f ok.txt"


def events_of(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def user_texts(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "user"]


def test_a_goal_met_by_its_check_command_on_round_3(
    server: FakeProviderServer, run_pi: RunPi, project: Path
) -> None:
    write = ToolCallSpec("write", {"path": "ok.txt", "content": "done\n"}, id="w1")
    server.add(
        Turn(text="round one: not there yet"),
        Turn(text="round two: still working"),
        Turn(tool_calls=[write]),
        Turn(text="round three: wrote ok.txt"),
    )
    args = fake_args(server, "--mode", "json", "--goal", "ok.txt exists", "--goal-check", CHECK)
    result = run_pi(*args, "make ok.txt appear")
    assert result.returncode == 0, result.stderr
    assert (project / "ok.txt").read_text() == "done\n"
    assert len(server.requests) == 4  # three rounds, no judge (the check decides)
    first = user_texts(server.requests[0])
    assert first[0].startswith("make ok.txt appear\n\n[goal] Work until this holds: ok.txt exists")
    assert f"pi runs `{CHECK}`" in first[0]
    second = user_texts(server.requests[1])[-1]
    assert second.startswith("[goal] Not met yet after round 1 of 20:")
    assert "exited with code 1" in second and "checking round" in second  # the output tail
    events = events_of(result.stdout)
    checks = [e for e in events if e["type"] == "goal_checked"]
    assert [(c["round"], c["met"], c["by"], c["exitCode"]) for c in checks] == [
        (1, False, "check", 1),
        (2, False, "check", 1),
        (3, True, "check", 0),
    ]
    final = [e for e in events if e["type"] == "goal_changed"][-1]["goal"]
    assert final["status"] == "met" and final["rounds"] == 3 and not final["checking"]


def test_a_goal_judged_met_shows_the_verdict_and_reason(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    server.add(
        Turn(text="I fixed it, trust me"),
        Turn(text='{"verdict": "not_met", "reason": "no test output is shown"}'),
        Turn(text="ran the tests: 12 passed"),
        Turn(text='Sure. {"verdict": "met", "reason": "the output shows 12 passed"}'),
    )
    result = run_pi(*fake_args(server, "--goal", "the tests pass"), "fix the tests")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ran the tests: 12 passed\n"
    assert "goal round 1: not met (judge) — no test output is shown" in result.stderr
    assert "goal round 2: met (judge) — the output shows 12 passed" in result.stderr
    judge = server.requests[1]
    assert not judge.get("tools")  # the judge can run nothing
    assert "You judge whether a goal holds" in judge["messages"][0]["content"]
    assert "Goal:\nthe tests pass" in judge["messages"][1]["content"]
    assert "I fixed it, trust me" in judge["messages"][1]["content"]


def test_a_goal_the_judge_finds_blocked_is_unmet_and_exits_1(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    server.add(
        Turn(text="I need the production password"),
        Turn(text='{"verdict": "blocked", "reason": "only the user has the password"}'),
    )
    result = run_pi(*fake_args(server, "--goal", "deployed to production"), "deploy")
    assert result.returncode == 1
    assert "pi: the goal was not met: only the user has the password" in result.stderr
    assert len(server.requests) == 2


def test_max_turns_ends_the_pursuit_budget_limited_exit_5(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    for i in range(6):
        server.add(Turn(text=f"attempt {i}"))
    args = fake_args(
        server, "--mode", "json", "--max-turns", "2", "--goal", "x", "--goal-check", "false"
    )
    result = run_pi(*args, "try")
    assert result.returncode == 5, result.stderr
    assert len(server.requests) == 2  # two rounds of one turn each, then the budget
    events = events_of(result.stdout)
    (stop,) = [e for e in events if e["type"] == "budget_exceeded"]
    assert stop["budget"] == "turns" and stop["used"] == 2
    final = [e for e in events if e["type"] == "goal_changed"][-1]["goal"]
    assert final["status"] == "budget-limited"
    assert final["reason"] == "stopped: the run reached --max-turns 2 (2 turns)"


def test_goal_max_rounds_ends_the_pursuit_exit_5(
    server: FakeProviderServer, run_pi: RunPi, pi_home: Path
) -> None:
    (pi_home / "settings.json").write_text(json.dumps({"goal": {"maxRounds": 3}}))
    for i in range(5):
        server.add(Turn(text=f"attempt {i}"))
    result = run_pi(*fake_args(server, "--goal", "never", "--goal-check", "exit 3"), "go")
    assert result.returncode == 5, result.stderr
    assert len(server.requests) == 3
    assert "stopped: the goal reached goal.maxRounds 3 without being met" in result.stderr
    assert "goal budget-limited (3/3, check: exit 3)" in result.stderr
    assert result.stdout == ""


def test_a_goal_without_a_prompt_starts_from_its_directive(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    server.add(Turn(text="done"))
    result = run_pi(*fake_args(server, "-p", "--goal", "say done", "--goal-check", "true"))
    assert result.returncode == 0, result.stderr
    assert user_texts(server.requests[0])[0].startswith("[goal] Work until this holds: say done")


def test_goal_check_without_goal_is_a_usage_error(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    result = run_pi(*fake_args(server, "--goal-check", "true"), "hi")
    assert result.returncode == 2
    assert "--goal-check goes with --goal" in result.stderr
    assert server.requests == []
