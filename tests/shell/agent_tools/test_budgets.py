"""--max-turns and --max-cost: the run stops cleanly, one-shot exits 5; unknown prices refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_cli.shell.coding_agent import ConfigError
from pi_cli.shell.events.agent_tools import BudgetExceeded
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn, UsageSpec
from tests.shell.agent_tools.conftest import (
    RunPi,
    fake_args,
    make_shell,
    priced_model,
    record,
)


def looping(server: FakeProviderServer, calls: int, **usage: int) -> None:
    for i in range(calls):
        spec = ToolCallSpec("read", {"path": "package.json"}, id=f"r{i}")
        server.add(Turn(tool_calls=[spec], usage=UsageSpec(**usage) if usage else UsageSpec()))
    server.add(Turn(text="finally done"))


def test_max_turns_stops_the_run_with_exit_code_5(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    looping(server, 5)
    result = run_pi(*fake_args(server, "--max-turns", "2"), "read it over and over")
    assert result.returncode == 5, result.stderr
    assert len(server.requests) == 2  # no third model call
    assert result.stdout == ""
    assert "pi: stopped: the run reached --max-turns 2 (2 turns)" in result.stderr


def test_max_turns_from_settings_and_json_mode(
    server: FakeProviderServer, run_pi: RunPi, pi_home: Path
) -> None:
    (pi_home / "settings.json").write_text(json.dumps({"maxTurns": 1}))
    looping(server, 3)
    result = run_pi(*fake_args(server, "--mode", "json"), "loop")
    assert result.returncode == 5
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    (stop,) = [line for line in lines if line["type"] == "budget_exceeded"]
    assert stop == {
        "type": "budget_exceeded",
        "budget": "turns",
        "limit": 1,
        "used": 1,
        "message": "stopped: the run reached --max-turns 1 (1 turns)",
    }
    assert lines[-2]["type"] == "agent_end" and lines[-1] == stop  # it follows the run's end


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--max-turns", "0"), ("--max-turns", "2.5"), ("--max-cost", "-1"), ("--max-cost", "free")],
)
def test_bad_budget_values_are_usage_errors(
    server: FakeProviderServer, run_pi: RunPi, flag: str, value: str
) -> None:
    result = run_pi(*fake_args(server, flag, value), "hi")
    assert result.returncode == 2
    assert flag in result.stderr and "Traceback" not in result.stderr
    assert server.requests == []


def test_max_cost_with_an_unknown_price_refuses_to_start(
    server: FakeProviderServer, run_pi: RunPi
) -> None:
    result = run_pi(*fake_args(server, "--max-cost", "0.50"), "hi")
    assert result.returncode == 2
    assert "pi does not know the price of openai/fake-model" in result.stderr
    assert "models.json" in result.stderr
    assert server.requests == []


def test_max_cost_stops_a_run_that_spent_it(
    server: FakeProviderServer, run_pi: RunPi, pi_home: Path
) -> None:
    spec = priced_model(pi_home, server)  # 10 input + 5 output tokens cost $1.50
    looping(server, 5)
    result = run_pi("--model", spec, "--no-session", "--max-cost", "2", "loop")
    assert result.returncode == 5, result.stderr
    assert len(server.requests) == 2  # $1.50, then $3.00 >= $2: stopped before a third call
    assert "reached --max-cost $2 (spent $3.0000)" in result.stderr


async def test_sub_agents_count_against_the_cost(
    project: Path, server: FakeProviderServer, pi_home: Path
) -> None:
    spec = priced_model(pi_home, server, dollars_per_m=1e5)
    task = {"description": "x", "prompt": "CHILD-C: read", "subagent_type": "general-purpose"}
    server.add(
        Turn(tool_calls=[ToolCallSpec("task", task, id="t1")]),
        Turn(text="never reached"),
    )
    read = ToolCallSpec("read", {"path": "package.json"}, id="c1")
    server.routes["CHILD-C"] = [Turn(tool_calls=[read]), Turn(tool_calls=[read]), Turn(text="c")]
    shell = make_shell(project, server, model=spec, max_cost=2.5)
    events = record(shell)
    await shell.submit("delegate")
    await shell.wait_idle()
    # parent $1.50 + child $1.50 = $3.00 >= $2.50: the child stops before its second turn,
    # and the parent before its second.
    (stop,) = [e for e in events if isinstance(e, BudgetExceeded)]
    assert stop.budget == "cost" and stop.used == pytest.approx(3.0)
    assert len(server.requests) == 2
    result = shell.messages[-1]
    assert result.role == "toolResult" and "[agent general-purpose" in result.text
    assert shell.usage.cost == pytest.approx(3.0)
    await shell.aclose()


async def test_a_budget_resets_for_the_next_prompt(
    project: Path, server: FakeProviderServer
) -> None:
    looping(server, 1)
    looping(server, 0)
    shell = make_shell(project, server, max_turns="1")
    events = record(shell)
    await shell.submit("first")
    await shell.wait_idle()
    await shell.submit("second")
    await shell.wait_idle()
    assert len([e for e in events if isinstance(e, BudgetExceeded)]) == 1
    assert shell.messages[-1].text == "finally done"
    await shell.aclose()


def test_switching_to_an_unpriced_model_is_refused_under_max_cost(
    project: Path, server: FakeProviderServer, pi_home: Path
) -> None:
    spec = priced_model(pi_home, server)
    shell = make_shell(project, server, model=spec, max_cost="1")
    with pytest.raises(ConfigError, match="does not know the price of fakepriced/free"):
        shell.set_model("fakepriced/free")
    assert shell.model_id == spec
