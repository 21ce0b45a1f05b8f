"""/goal through the shell: set, pause while a run is live, abort a check, resume, edit, drop;
the goal in the session tree (``pi -c`` continues it, ``/tree`` sees it as it was)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_core import TurnStart
from pi_cli.shell.coding_agent import CodingAgent, ConfigError
from pi_cli.shell.events.long_running import GoalChanged, GoalChecked
from pi_cli.shell.goals._commands import split_check
from pi_cli.shell.goals._state import MAX_CONDITION_CHARS
from pi_cli.shell.session.entries import entry_problem
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import ToolCallSpec, Turn
from tests.shell.agent_tools.conftest import make_shell, record


def goal_entries(shell: CodingAgent) -> list[dict[str, Any]]:
    path = shell.session.path
    assert path is not None
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [e for e in lines if e.get("type") == "goal"]


async def run(shell: CodingAgent, text: str) -> Any:
    result = await shell.submit(text)
    await shell.wait_idle()
    return result


async def test_goal_is_stored_continued_and_seen_by_the_tree(
    project: Path, server: FakeProviderServer
) -> None:
    write = ToolCallSpec("write", {"path": "ok.txt", "content": "x"}, id="w1")
    server.add(Turn(text="not yet"), Turn(tool_calls=[write]), Turn(text="wrote it"))
    shell = make_shell(project, server)
    events = record(shell)
    result = await run(shell, '/goal --check "test -f ok.txt" ok.txt exists')
    assert result.output.startswith("Goal pursuing, round 0/20: ok.txt exists (check: test -f")
    assert shell.goals.goal is not None and shell.goals.goal.status == "met"
    stored = goal_entries(shell)
    assert [(e["status"], e["rounds"]) for e in stored] == [
        ("pursuing", 0),
        ("pursuing", 1),
        ("met", 2),
    ]
    statuses = [e.goal.status for e in events if isinstance(e, GoalChanged) and e.goal]
    assert statuses[0] == "pursuing" and statuses[-1] == "met"
    assert any(isinstance(e, GoalChanged) and e.goal and e.goal.checking for e in events)
    pursuing_entry = stored[1]["id"]
    await shell.aclose()

    resumed = make_shell(project, server, continue_session=True)
    assert resumed.goals.goal is not None
    assert (resumed.goals.goal.status, resumed.goals.goal.rounds) == ("met", 2)
    previews = [e.preview for e in resumed.tree_entries()]
    assert "[goal met] ok.txt exists" in previews
    resumed.navigate_to(pursuing_entry)  # /tree: the goal as it was at that point
    assert resumed.goals.goal.status == "pursuing" and resumed.goals.goal.rounds == 1
    resumed.new_session()
    assert resumed.goals.goal is None
    await resumed.aclose()


async def test_a_pursuing_goal_is_continued_by_pi_c(
    project: Path, server: FakeProviderServer
) -> None:
    shell = make_shell(project, server)
    shell.goals.set("the file exists", "test -f later.txt")  # as if pi stopped mid-pursuit
    await shell.aclose()
    (project / "later.txt").write_text("")
    server.add(Turn(text="checked"))
    resumed = make_shell(project, server, continue_session=True)
    events = record(resumed)
    assert any(
        "Goal pursuing, round 0/20: the file exists" in n.text for n in resumed.startup_notices
    )
    await run(resumed, "carry on")
    (check,) = [e for e in events if isinstance(e, GoalChecked)]
    assert check.met and check.round == 1
    assert resumed.goals.goal is not None and resumed.goals.goal.status == "met"
    await resumed.aclose()


async def test_pause_while_a_run_is_live_takes_effect_when_the_round_ends(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(Turn(text="working", chunk_size=2))
    shell = make_shell(project, server)
    results: list[Any] = []

    def pause_on_first_turn(event: object) -> None:
        if isinstance(event, TurnStart) and not results:
            results.append(shell.submit("/goal pause"))

    shell.subscribe(pause_on_first_turn)
    await run(shell, "/goal --check false never")
    assert (await results[0]).output.startswith("Goal paused, round 0/20: never")
    goal = shell.goals.goal
    assert goal is not None and goal.status == "paused" and goal.reason == "paused with /goal pause"
    assert len(server.requests) == 1  # no check, no second round
    refused = await shell.submit("/goal something else")  # idle: allowed
    await shell.wait_idle()
    assert not refused.error
    await shell.aclose()


async def test_a_new_goal_is_refused_while_a_run_is_live(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(Turn(text="working"))
    shell = make_shell(project, server)
    results: list[Any] = []

    def on_turn(event: object) -> None:
        if isinstance(event, TurnStart) and not results:
            results.append(shell.submit("/goal a new one"))
            results.append(shell.submit("/goal"))

    shell.subscribe(on_turn)
    await run(shell, "hello")
    refused, shown = [await r for r in results]
    assert refused.error and "A run is live" in refused.output
    assert shown.output.startswith("No goal.")
    assert shell.goals.goal is None
    await shell.aclose()


async def test_esc_during_the_check_pauses_the_goal(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(Turn(text="done?"))
    shell = make_shell(project, server)

    def abort_while_checking(event: object) -> None:
        if isinstance(event, GoalChanged) and event.goal and event.goal.checking:
            shell.abort()

    shell.subscribe(abort_while_checking)
    await run(shell, "/goal --check 'sleep 60' slept")
    goal = shell.goals.goal
    assert goal is not None and goal.status == "paused" and goal.reason == "the run was aborted"
    assert len(server.requests) == 1
    await shell.aclose()


async def test_resume_grants_more_rounds_and_edit_keeps_the_goal(
    project: Path, server: FakeProviderServer
) -> None:
    server.add(Turn(text="one"), Turn(text="two"), Turn(text="three"))
    shell = make_shell(project, server, settings=None)
    shell.settings.goal.max_rounds = 1
    await run(shell, "/goal --check 'test -f ok.txt' ok")
    goal = shell.goals.goal
    assert goal is not None and goal.status == "budget-limited" and goal.rounds == 1
    edited = await run(shell, "/goal edit --check 'test -f ok2.txt' ok2 exists")
    assert edited.output.startswith(
        "Edited. Goal pursuing, round 1/1: ok2 exists (check: test -f ok2"
    )
    assert shell.goals.goal is not None and shell.goals.goal.id == goal.id
    (project / "ok2.txt").write_text("")
    resumed = await run(shell, "/goal resume")
    assert not resumed.error
    assert server.requests[-1]["messages"][-1]["content"].startswith(
        "[goal] Resume working until this holds: ok2 exists"
    )
    assert shell.goals.goal.status == "met" and shell.goals.goal.rounds == 1
    dropped = await run(shell, "/goal drop")
    assert dropped.output == "Goal dropped." and shell.goals.goal is None
    assert goal_entries(shell)[-1] == {**goal_entries(shell)[-1], "status": "dropped"}
    await shell.aclose()


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("/goal --check", "A goal needs a condition"),
        ("/goal --check ''  tests pass", "The goal's check command is empty"),
        ("/goal " + "x" * (MAX_CONDITION_CHARS + 1), "at most 4000 characters"),
        ("/goal resume", "No goal to resume"),
        ("/goal edit new words", "No goal to edit"),
        ("/goal pause", "No goal to pause"),
        ("/goal drop", "No goal to drop"),
    ],
)
async def test_bad_goal_commands_say_why(
    project: Path, server: FakeProviderServer, line: str, expected: str
) -> None:
    shell = make_shell(project, server)
    result = await run(shell, line)
    assert result.error and expected in result.output
    assert shell.goals.goal is None and server.requests == []
    await shell.aclose()


def test_split_check() -> None:
    assert split_check('--check "make test -k \\"a b\\"" all pass') == (
        'make test -k "a b"',
        "all pass",
    )
    assert split_check("--check='npm test' green") == ("npm test", "green")
    assert split_check("--check pytest green") == ("pytest", "green")
    assert split_check("tests --check pass") == (None, "tests --check pass")


def test_goal_check_alone_is_refused(project: Path, server: FakeProviderServer) -> None:
    with pytest.raises(ConfigError, match="--goal-check needs --goal"):
        make_shell(project, server, goal_check="true")


@pytest.mark.parametrize(
    "entry",
    [
        {"type": "goal", "status": "met", "condition": "x"},
        {"type": "goal", "goalId": "g", "status": "won", "condition": "x"},
        {"type": "goal", "goalId": "g", "status": "met", "condition": 3},
        {"type": "goal", "goalId": "g", "status": "met", "condition": "x", "rounds": -1},
        {"type": "goal", "goalId": "g", "status": "met", "condition": "x", "rounds": True},
        {"type": "goal", "goalId": "g", "status": "met", "condition": "x", "check": ["rm"]},
    ],
)
def test_damaged_goal_entries_are_named(entry: dict[str, Any]) -> None:
    assert entry_problem(entry) is not None
    assert entry_problem({"type": "goal", "goalId": "g", "status": "dropped"}) is None
