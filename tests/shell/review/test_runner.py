"""The review runner with a stand-in ``task`` runner: parts in parallel up to
``review.parallel``, answers checked, retries, budgets."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pi_cli.shell.agent_tools._budget import BudgetGuard
from pi_cli.shell.config.settings import Settings
from pi_cli.shell.review.runner import run_review
from pi_cli.shell.review.target import ReviewTarget
from tests.shell.review.conftest import answer, finding
from tools.task import TaskOutcome


def _diff(files: int) -> str:
    parts = []
    for n in range(files):
        body = "".join(f"+line {i}\n" for i in range(1, 81))
        parts.append(
            f"diff --git a/f{n}.py b/f{n}.py\nnew file mode 100644\n--- /dev/null\n"
            f"+++ b/f{n}.py\n@@ -0,0 +1,80 @@\n{body}"
        )
    return "".join(parts)


class Runner:
    """Answers each part after yielding a few times; records how many ran at once."""

    def __init__(self, answers: dict[str, list[str]] | None = None) -> None:
        self.running = 0
        self.most = 0
        self.prompts: list[str] = []
        self.answers = answers or {}
        self.budget: BudgetGuard | None = None  # the real runner adds each child's cost

    async def __call__(self, request: Any, cancel: Any, on_update: Any) -> TaskOutcome:
        self.running += 1
        self.most = max(self.most, self.running)
        self.prompts.append(request.prompt)
        for _ in range(5):
            await asyncio.sleep(0)
        self.running -= 1
        if self.budget is not None:
            self.budget.add_cost(0.25)
        name = request.prompt.split("=== ")[1].split("\n")[0].split(" (")[0]
        queue = self.answers.get(name)
        text = queue.pop(0) if queue else answer(finding(name, 2, 2, "low", f"in {name}"))
        return TaskOutcome(text, "pi-review", "m", 1, {"cost": 0.25}, None)


def _shell(settings: dict[str, Any], runner: Runner, max_cost: float | None = None) -> Any:
    budget = BudgetGuard(None, max_cost, lambda event: None)
    runner.budget = budget
    tools = SimpleNamespace(start_run=budget.start_run, runner=runner, budget=budget)
    return SimpleNamespace(
        cwd=Path("."), settings=Settings.model_validate(settings), model_id="m", agent_tools=tools
    )


def _target(files: int) -> ReviewTarget:
    return ReviewTarget("range", "a..b", "changes a..b", "a", "b", _diff(files), [])


async def test_parts_run_in_parallel_up_to_the_setting() -> None:
    for parallel, most in [(1, 1), (3, 3), (16, 6)]:
        runner = Runner()
        settings = {"review": {"chunkLines": 100, "parallel": parallel}}
        report = await run_review(_shell(settings, runner), _target(6))
        assert runner.most == most
        assert report.chunks == 6 and not report.incomplete
        assert sorted(f.file for f in report.findings) == [f"f{n}.py" for n in range(6)]
        assert report.cost == 6 * 0.25


async def test_a_bad_answer_is_asked_again_then_reported() -> None:
    runner = Runner({"f0.py": ["not json", answer()], "f1.py": ["x", "y", "z"]})
    report = await run_review(_shell({"review": {"chunkLines": 100}}, runner), _target(2))
    assert report.incomplete == ["schema"]
    assert report.warnings == [
        "part 2: no valid answer after 3 attempts: it is not JSON: Expecting value at line 1, column 1"
    ]
    assert json.loads(json.dumps(report.to_json()))["complete"] is False


async def test_the_cost_budget_stops_later_parts() -> None:
    runner = Runner()
    settings = {"review": {"chunkLines": 100, "parallel": 1}}
    report = await run_review(_shell(settings, runner, max_cost=0.5), _target(4))
    assert len(runner.prompts) == 2  # 0.25 each: the third part finds the budget spent
    assert report.incomplete == ["budget"]
    assert sum("a budget is spent" in w for w in report.warnings) == 2
