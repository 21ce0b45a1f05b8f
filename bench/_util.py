"""Helpers shared by the benchmark scripts: timing child processes with their peak RSS."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_measured(
    argv: list[str],
    *,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: int | None = subprocess.DEVNULL,
) -> tuple[float, float, int, bytes]:
    """Run ``argv``; return (wall seconds, peak RSS MiB, exit code, stdout)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=stdin
    )
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, process.returncode, output


def median(values: list[float]) -> float:
    """The median."""
    return statistics.median(values)


def pi_argv(*args: str) -> list[str]:
    """Run pi with this interpreter, as the installed console script does."""
    return [sys.executable, "-m", "pi_cli.cli", *args]


def fake_pi_argv(base_url: str, *args: str) -> list[str]:
    """pi against a fake server at ``base_url`` (model ``openai/fake-model``, a dummy key)."""
    return pi_argv("--model", "openai/fake-model", "--api-base", base_url, "--api-key", "x", *args)


def bench_env(home: Path) -> dict[str, str]:
    """A clean environment: temp PI_HOME, no provider keys, no local probing."""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    # PI_BENCH_REPO: measure another checkout's pi with this harness (run with its venv's python).
    repo = os.environ.get("PI_BENCH_REPO") or str(REPO)
    env.update({"PI_HOME": str(home), "PYTHONPATH": repo, "PI_NO_LOCAL_PROBE": "1"})
    return env
