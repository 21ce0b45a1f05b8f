"""Flags extensions register (pi-ts's ``registerFlag``): pi's parser knows them from the
extensions' cache, ``pi --help`` lists them, the extension reads the value (``plan_mode``'s
``--plan`` starts in plan mode, as pi-ts's plan-mode example does)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from tests.agent_core.scripted_stream import ScriptedStream
from tests.shell.extensions.helpers import shell_with

REPO = Path(__file__).resolve().parents[2]
PLAN = REPO / "examples" / "extensions" / "plan_mode.py"


def pi(args: list[str], pi_home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update({"PI_HOME": str(pi_home), "PYTHONPATH": str(REPO), "PI_NO_LOCAL_PROBE": "1"})
    return subprocess.run(
        [sys.executable, "-m", "pi_cli.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
    )


def test_split_flags_takes_only_the_registered_ones() -> None:
    from pi_cli.shell import split_flags

    flags = [{"name": "plan", "type": "boolean"}, {"name": "preset", "type": "string"}]
    rest, values = split_flags(
        ["--plan", "--preset", "fast", "hello", "--model", "x/y", "--", "--plan"], flags
    )
    assert values == {"plan": True, "preset": "fast"}
    assert rest == ["hello", "--model", "x/y", "--", "--plan"]
    assert split_flags(["--preset=a b", "--plan=1"], flags) == (["--plan=1"], {"preset": "a b"})
    assert split_flags(["--preset"], flags) == (["--preset"], {})


async def test_the_extension_reads_its_flag_and_starts_in_plan_mode(
    project: Path, pi_home: Path
) -> None:
    (pi_home / "settings.json").write_text(json.dumps({"extensions": [str(PLAN)]}))
    shell = shell_with(project, ScriptedStream(), extension_flags={"plan": True})
    await shell.extensions.dispatcher.start()
    for _ in range(1000):  # session_start's notice is not waited for
        if sorted(t.name for t in shell.agent.tools) == ["read"]:
            break
        await asyncio.sleep(0.01)
    assert sorted(t.name for t in shell.agent.tools) == ["read"]  # plan mode: only reading
    await shell.aclose()


async def test_pi_knows_the_flag_once_the_extension_was_loaded(
    tmp_path: Path, pi_home: Path
) -> None:
    (pi_home / "settings.json").write_text(json.dumps({"extensions": [str(PLAN)]}))
    project = tmp_path / "project"
    project.mkdir()
    before = pi(["--help"], pi_home, project)
    assert before.returncode == 0 and "--plan" not in before.stdout
    refused = pi(["--plan", "--list-models"], pi_home, project)
    assert refused.returncode == 2 and "--plan" in refused.stderr  # never loaded: unknown
    shell = shell_with(project, ScriptedStream())  # a start loads it and caches what it has
    await shell.aclose()
    helped = pi(["--help"], pi_home, project)
    assert "Extension flags" in helped.stdout
    row = next(line for line in helped.stdout.splitlines() if "--plan" in line)
    assert "Start in plan mode" in row and "(plan_mode)" in row
    listed = pi(["--plan", "--list-models"], pi_home, project)
    assert listed.returncode == 0, listed.stderr
    unknown = pi(["--plan", "--no-such-flag", "--list-models"], pi_home, project)
    assert unknown.returncode == 2 and "--no-such-flag" in unknown.stderr
