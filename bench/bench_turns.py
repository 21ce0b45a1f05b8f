"""Cost per turn as the conversation grows: a 200-turn scripted one-shot run of the real ``pi``.

Each of the first 199 turns streams a sentence and one ``read`` call; turn 200 answers. The
fake server samples pi's CPU time (``/proc/<pid>/task/*/schedstat``: nanoseconds, summed over
its threads; load-independent) and the wall clock when each request arrives, so turn k costs
the CPU pi spent between request k and request k+1: reading answer k, running its tool,
saving it in the session, building and sending request k+1. The gap is the wall time from the
server's last byte of answer k to request k+1. Reported at turns 1-10 and 190-199.

Run: ``.venv/bin/python bench/bench_turns.py`` (``make bench``). Goal: <= 3 ms of pi's CPU per
turn at turn 200, flat. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._util import bench_env, fake_pi_argv  # noqa: E402
from tests.fakes.provider_server import FakeProviderServer  # noqa: E402
from tests.fakes.script import ToolCallSpec, Turn, UsageSpec  # noqa: E402

TURNS = 200
RUNS = 3
FINAL = "All 199 files read."


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
    """The fake server, noting pi's CPU time and the wall clock as each request arrives."""

    pid: int | None = None

    def __init__(self, script: list[Turn]) -> None:
        super().__init__(script)
        self.samples: list[tuple[float, int]] = []

    def _take(self, body: dict[str, Any], path: str, headers: dict[str, str]) -> Any:
        if self.pid is not None:
            self.samples.append((time.time(), cpu_ns(self.pid)))
        return super()._take(body, path, headers)


def script() -> list[Turn]:
    turns = [
        Turn(
            text=f"Step {i}: reading the next file.",
            tool_calls=[ToolCallSpec("read", {"path": f"f{i % 20}.txt"}, id=f"call_{i}")],
            usage=UsageSpec(input=100 + 60 * i, output=20),
        )
        for i in range(TURNS - 1)
    ]
    return [*turns, Turn(text=FINAL, usage=UsageSpec(input=100 + 60 * TURNS, output=8))]


def one_run(project: Path, env: dict[str, str]) -> tuple[list[float], list[float], bool]:
    """(CPU ms per turn, gap ms per turn, answered) for turns 1..TURNS-1."""
    with SamplingServer(script()) as server:
        argv = fake_pi_argv(
            server.openai_base_url,
            "-p",
            "read the files one by one",
        )
        process = subprocess.Popen(
            argv, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        server.pid = process.pid
        out, _ = process.communicate(timeout=300)
        samples = server.samples
        ends = server.stream_end_times
    cpu = [(b[1] - a[1]) / 1e6 for a, b in zip(samples, samples[1:], strict=False)]
    gaps = [(samples[k + 1][0] - ends[k]) * 1000 for k in range(len(samples) - 1)]
    return cpu, gaps, out.decode().strip() == FINAL and len(samples) == TURNS


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        for i in range(20):
            (project / f"f{i}.txt").write_text(f"file {i}\n" + "some content line\n" * 20)
        env = bench_env(root / "home")
        runs = [one_run(project, env) for _ in range(RUNS)]
    ok = all(r[2] for r in runs)

    def at(kind: int, lo: int, hi: int) -> float:
        # Turn k (1-based) costs index k-1; the median over runs of each turn, then over turns.
        per_turn = [statistics.median(r[kind][k - 1] for r in runs) for k in range(lo, hi + 1)]
        return statistics.median(per_turn)

    print(f"{TURNS}-turn scripted one-shot (read tool each turn, session saved, {RUNS} runs):")
    print(
        f"  pi CPU per turn: turns 1-10 {at(0, 1, 10):.2f} ms, turns 190-199 "
        f"{at(0, 190, 199):.2f} ms   (goal <= 3 ms at turn 200, flat)"
    )
    print(
        f"  gap (answer's last byte -> next request, wall, under load): turns 1-10 "
        f"{at(1, 1, 10):.2f} ms, turns 190-199 {at(1, 190, 199):.2f} ms"
        + ("" if ok else "   [FAILED: wrong answer or missing turns]")
    )


if __name__ == "__main__":
    main()
