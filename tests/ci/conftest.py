"""A pull request in a real git repository (a bare ``origin``), and the composite action's
steps run as GitHub runs them: inputs into each step's env, outputs through GITHUB_OUTPUT."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.shell.review.conftest import BASE_FILES, BUGGY_FILES, commit, git, require_git, write

REPO = Path(__file__).resolve().parents[2]
BIN = str(Path(sys.executable).parent)
_EXPR = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


@pytest.fixture
def pull_request(tmp_path: Path) -> Path:
    """A clone whose ``topic`` branch (checked out) seeds bugs over ``origin/main``."""
    require_git()
    origin = tmp_path / "origin.git"
    seed = tmp_path / "seed"
    seed.mkdir()
    git(seed, "init", "-q", "-b", "main")
    write(seed, dict(BASE_FILES))
    commit(seed, "clean start")
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(origin))
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(origin), str(work))
    git(work, "checkout", "-q", "-b", "topic")
    write(work, dict(BUGGY_FILES))
    commit(work, "seed bugs")
    return work


def base_env(home: Path, tmp: Path) -> dict[str, str]:
    """The runner's environment: no provider keys, pi and python on PATH, git quiet."""
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN"))}
    env.update(
        PI_HOME=str(home), PYTHONPATH=str(REPO), PI_NO_LOCAL_PROBE="1",
        PATH=f"{BIN}:{env.get('PATH', '')}", RUNNER_TEMP=str(tmp),
        GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1",
    )  # fmt: skip
    return env


class ActionRun:
    """The result of running the action: each step's outputs, whether it ran, the exit code."""

    def __init__(self) -> None:
        self.outputs: dict[str, dict[str, str]] = {}
        self.ran: list[str] = []
        self.code = 0
        self.log = ""


def _value(expr: str, inputs: dict[str, str], run: ActionRun, github: dict[str, str]) -> str:
    head, _, rest = expr.partition(".")
    if head == "inputs":
        return inputs[rest]
    if head == "github":
        return github[rest]
    if head == "steps":
        step, _, output = rest.partition(".outputs.")
        return run.outputs.get(step, {}).get(output, "")
    raise AssertionError(f"unsupported expression {expr}")


def _condition(expr: str, inputs: dict[str, str], run: ActionRun, github: dict[str, str]) -> bool:
    for part in expr.split("&&"):
        left, op, right = re.split(r"\s*(==|!=)\s*", part.strip())
        value = _value(left, inputs, run, github)
        expected = right.strip("'")
        if (value == expected) != (op == "=="):
            return False
    return True


def run_action(
    workdir: Path, given: dict[str, str], env: dict[str, str], github: dict[str, str]
) -> ActionRun:
    """Run ``action.yml``'s steps in ``workdir`` with the inputs ``given`` (defaults otherwise)."""
    action = yaml.safe_load((REPO / "action.yml").read_text())
    inputs = {}
    for name, spec in action["inputs"].items():
        default = str(spec.get("default", ""))
        inputs[name] = given.get(
            name, _EXPR.sub(lambda m: _value(m.group(1), {}, ActionRun(), github), default)
        )
    run = ActionRun()
    for step in action["runs"]["steps"]:
        if "if" in step and not _condition(step["if"], inputs, run, github):
            continue
        output = Path(env["RUNNER_TEMP"]) / f"output-{step['id']}"
        output.write_text("")
        step_env = {**env, "GITHUB_OUTPUT": str(output), "GITHUB_ACTION_PATH": str(REPO)}
        for key, value in (step.get("env") or {}).items():
            step_env[key] = _EXPR.sub(lambda m: _value(m.group(1), inputs, run, github), str(value))
        done = subprocess.run(
            ["bash", "-e", "-c", step["run"]], cwd=workdir, env=step_env,
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        run.ran.append(step["id"])
        run.log += done.stdout + done.stderr
        run.outputs[step["id"]] = dict(
            line.split("=", 1) for line in output.read_text().splitlines() if "=" in line
        )
        if done.returncode != 0:
            run.code = done.returncode
            break
    return run


def event_file(tmp: Path, number: int = 7, head: str = "a" * 40) -> Path:
    """A pull_request event payload."""
    path = tmp / "event.json"
    path.write_text(json.dumps({"pull_request": {"number": number, "head": {"sha": head}}}))
    return path


def load_report(run: ActionRun) -> dict[str, Any]:
    return json.loads(Path(run.outputs["run"]["report"]).read_text())
