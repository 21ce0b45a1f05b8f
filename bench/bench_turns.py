"""Cost per turn as the conversation grows: a 200-turn scripted one-shot run of the real ``pi``.

Each of the first 199 turns streams a sentence and one tool call, alternating ``read`` and
``bash`` (``echo marker-k; ls -la``); turn 200 answers (the scenario perf-3 measured the peers
with, the read first: so the first bash call comes in the run's second turn, and the run's
first turn, which pays what any first turn does, is reported apart). The fake server samples the agent's CPU time (``/proc/<pid>/task/*/schedstat``:
nanoseconds, summed over its threads; load-independent) and the wall clock when each request
arrives, so turn k costs the CPU the agent spent between request k and request k+1: reading
answer k, running its tool, saving it, building and sending request k+1. The gap is the wall
time from the server's last byte of answer k to request k+1 (a bash turn / a read turn).

Reported: CPU per turn by blocks of 20 turns, turns 1-10 against 190-199, the gaps, the first
bash turn against the later ones; the TypeScript pi in the same harness when it is installed.
Targets (issue 25): turn 200 <= 1.1x turn 10 and <= 5 ms; a bash turn <= pi-ts's; the first
bash turn as fast as the later ones. Prints numbers; asserts nothing.

Run: ``.venv/bin/python bench/bench_turns.py`` (``make bench``).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._peer import pi_ts_argv, pi_ts_available, pi_ts_env  # noqa: E402
from bench._util import bench_env, fake_pi_argv  # noqa: E402
from tests.fakes.provider_server import FakeProviderServer  # noqa: E402
from tests.fakes.script import ToolCallSpec, Turn, UsageSpec  # noqa: E402

TURNS = 200
RUNS = 3
FINAL = "All 199 tool turns done."


def cpu_ns(pid: int) -> int:
    """CPU time of every live thread of ``pid`` so far, in nanoseconds."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            total += int(Path(f"/proc/{pid}/task/{task}/schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # the thread ended meanwhile
    return total


class SamplingServer(FakeProviderServer):
    """The fake server, noting the agent's CPU time and the wall clock as each request arrives."""

    pid: int | None = None

    def __init__(self, script: list[Turn]) -> None:
        super().__init__(script)
        self.samples: list[tuple[float, int]] = []

    def _take(self, body: dict[str, Any], path: str, headers: dict[str, str]) -> Any:
        if self.pid is not None:
            self.samples.append((time.time(), cpu_ns(self.pid)))
        return super()._take(body, path, headers)


def is_bash(turn: int) -> bool:
    """Turn ``turn`` (0-based) calls read (even) or bash (odd)."""
    return turn % 2 == 1


def script() -> list[Turn]:
    turns = []
    for i in range(TURNS - 1):
        if is_bash(i):
            call = ToolCallSpec("bash", {"command": f"echo marker-{i}; ls -la"}, id=f"call_{i}")
        else:
            call = ToolCallSpec("read", {"path": "package.json"}, id=f"call_{i}")
        usage = UsageSpec(input=100 + 60 * i, output=20)
        turns.append(Turn(text=f"Step {i}: the next tool.", tool_calls=[call], usage=usage))
    return [*turns, Turn(text=FINAL, usage=UsageSpec(input=100 + 60 * TURNS, output=8))]


class Run:
    """One agent run: CPU ms and gap ms per turn (turns 1..TURNS-1), and whether it answered."""

    def __init__(self, cpu: list[float], gaps: list[float], ok: bool) -> None:
        self.cpu, self.gaps, self.ok = cpu, gaps, ok


def one_run(make_argv: Callable[[str], list[str]], project: Path, env: dict[str, str]) -> Run:
    with SamplingServer(script()) as server:
        argv = make_argv(server.openai_base_url)
        process = subprocess.Popen(
            argv, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        server.pid = process.pid
        out, _ = process.communicate(timeout=600)
        samples, ends = server.samples, server.stream_end_times
    cpu = [(b[1] - a[1]) / 1e6 for a, b in zip(samples, samples[1:], strict=False)]
    gaps = [(samples[k + 1][0] - ends[k]) * 1000 for k in range(len(samples) - 1)]
    return Run(cpu, gaps, out.decode().strip().endswith(FINAL) and len(samples) == TURNS)


def per_turn(runs: list[Run], kind: str) -> list[float]:
    """The median over runs of each turn's value (turn k at index k-1)."""
    return [statistics.median(getattr(r, kind)[k] for r in runs) for k in range(TURNS - 1)]


def block(values: list[float], lo: int, hi: int, pick: Any = None) -> float:
    """Median of turns lo..hi (1-based), optionally only those ``pick(turn index)`` keeps."""
    chosen = [values[k - 1] for k in range(lo, hi + 1) if pick is None or pick(k - 1)]
    return statistics.median(chosen)


def report(label: str, runs: list[Run]) -> dict[str, float]:
    cpu, gaps = per_turn(runs, "cpu"), per_turn(runs, "gaps")
    blocks = [block(cpu, lo, min(lo + 19, TURNS - 1)) for lo in range(1, TURNS, 20)]
    first, last = block(cpu, 1, 10), block(cpu, 190, 199)
    bash = block(gaps, 3, TURNS - 1, is_bash)  # turn 2 (the first bash call) apart
    reads = block(gaps, 2, TURNS - 1, lambda k: not is_bash(k))  # turn 1: the run's first
    status = "" if all(r.ok for r in runs) else "   [FAILED: wrong answer or missing turns]"
    print(f"  {label}{status}")
    print("    CPU per turn by blocks of 20 (ms): " + ", ".join(f"{b:.2f}" for b in blocks))
    print(
        f"    CPU per turn, turns 1-10 {first:.2f} ms -> 190-199 {last:.2f} ms "
        f"({last / first:.2f}x)"
    )
    print(
        f"    gap (answer's last byte -> next request): bash turn {bash:.2f} ms, read turn "
        f"{reads:.2f} ms; the first bash turn {gaps[1]:.2f} ms; the run's first turn (a read) "
        f"{gaps[0]:.2f} ms"
    )
    return {"first": first, "last": last, "bash": bash, "first_bash": gaps[1]}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        (project / "package.json").write_text('{"name": "hello", "main": "hello.mjs"}\n')
        for i in range(12):
            (project / f"file{i}.txt").write_text(f"file {i}\n")
        env = bench_env(root / "home")
        peer = pi_ts_available()

        def pi_argv(base: str) -> list[str]:
            return fake_pi_argv(base, "-p", "run the tools one by one")

        def ts_argv(base: str) -> list[str]:
            return pi_ts_argv(base, root / "pi-ts-agent", "--no-session", "-p", "go")

        ts_env = pi_ts_env(env, root)
        pi_runs: list[Run] = []
        ts_runs: list[Run] = []
        for _ in range(RUNS):  # interleaved: both see the same load
            pi_runs.append(one_run(pi_argv, project, env))
            if peer:
                ts_runs.append(one_run(ts_argv, project, ts_env))
    print(
        f"{TURNS}-turn scripted one-shot (bash and read alternating, session saved, {RUNS} runs):"
    )
    ours = report("pi", pi_runs)
    theirs = report("pi-ts 0.73.1 (same harness)", ts_runs) if ts_runs else None
    flat = ours["last"] <= 1.1 * ours["first"] and ours["last"] <= 5
    print(
        f"  target: turn 200 <= 1.1x turn 10 and <= 5 ms: {ours['last'] / ours['first']:.2f}x, "
        f"{ours['last']:.2f} ms [{'met' if flat else 'NOT met'}]"
    )
    if theirs is not None:
        met = "met" if ours["bash"] <= theirs["bash"] else "NOT met"
        print(
            f"  target: a bash turn <= pi-ts's: {ours['bash']:.2f} vs {theirs['bash']:.2f} ms "
            f"(ratio {ours['bash'] / theirs['bash']:.2f}) [{met}]"
        )
    else:
        print("  pi-ts not installed (.ci/run installs it): no peer comparison")
    print(
        f"  target: the first bash turn costs what later ones do: {ours['first_bash']:.2f} vs "
        f"{ours['bash']:.2f} ms"
    )


if __name__ == "__main__":
    main()
