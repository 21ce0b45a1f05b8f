"""A long session in the TUI: one prompt -> 199 tool turns -> an answer, in tmux, against pi's
own one-shot of the same scenario (and the TypeScript pi's TUI where it is installed).

The scenario (:func:`scenario`): turn k calls ``bash`` with ``echo marker-k; ls -la`` (even k) or
``read package.json`` (odd k); turn 200 answers ``ALL TOOL TURNS DONE``. Measured per run: the
prompt's Enter -> the answer on screen with the run over (the footer's "Esc to abort" gone),
the agent's CPU meanwhile (its process and children), the per-turn gap (the fake server's last
byte of answer k -> request k+1, median per block of 20 turns), and the memory of the agent's
process before the prompt and after the run (growth per turn). The one-shot (``pi -p``, its
session kept: it then takes the checkpoints the TUI takes) runs the same script for the ratio
the issue sets (TUI <= 1.3x one-shot).

Run: ``.venv/bin/python bench/bench_tui_turns.py`` (``make bench``; ``BENCH_RUNS=n`` runs).
Prints numbers next to their targets; asserts nothing. Skipped without tmux.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._tui_harness import (  # noqa: E402
    Pane,
    pi_ts_available,
    pi_ts_tui,
    pi_tui,
    rss_mib,
    tree_cpu_seconds,
)
from bench._util import bench_env, fake_pi_argv  # noqa: E402
from tests.fakes.provider_server import FakeProviderServer  # noqa: E402
from tests.fakes.script import ToolCallSpec, Turn, UsageSpec  # noqa: E402

TURNS = 200
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
FINAL = "ALL TOOL TURNS DONE"
BLOCK = 20


def scenario() -> list[Turn]:
    """199 tool turns alternating a bash call and a read, then the answer."""
    turns = []
    for k in range(TURNS - 1):
        if k % 2 == 0:
            call = ToolCallSpec("bash", {"command": f"echo marker-{k}; ls -la"}, id=f"call_{k}")
        else:
            call = ToolCallSpec("read", {"path": "package.json"}, id=f"call_{k}")
        usage = UsageSpec(input=200 + 90 * k, output=20)
        turns.append(Turn(text=f"Step {k}.", tool_calls=[call], usage=usage))
    return [*turns, Turn(text=FINAL, usage=UsageSpec(input=200 + 90 * TURNS, output=8))]


def make_project(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "package.json").write_text('{"name": "hello", "main": "hello.mjs"}\n')
    (root / "hello.mjs").write_text('console.log("Hello, world!");\n')
    return root


def gaps(server: FakeProviderServer) -> list[float]:
    """ms from the end of answer k to request k+1, for k = 1..TURNS-1."""
    starts, ends = server.request_times, server.stream_end_times
    return [(starts[k + 1] - ends[k]) * 1000 for k in range(min(len(starts) - 1, len(ends)))]


class Run:
    """One measured TUI run."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0
        self.gaps: list[float] = []
        self.rss_before = 0.0
        self.rss_after = 0.0
        self.hwm = 0.0
        self.ok = False


Launcher = Callable[[Path, Path, int], tuple[list[str], dict[str, str], str]]


def tui_run(top: Path, index: int, launcher: Launcher, busy: str | None) -> Run:
    """The scenario typed into a TUI; ``busy``: text on screen while the agent works."""
    run = Run()
    home, cwd = top / f"home{index}", make_project(top / f"project{index}")
    home.mkdir()
    with FakeProviderServer(scenario()) as server:
        argv, env, ready = launcher(cwd, home, server.port)
        pane = Pane(cwd, env)
        try:
            pid = pane.start(argv, lambda screen: ready in screen)
            time.sleep(1.0)  # settled: the idle memory figure
            run.rss_before = rss_mib(pid)
            cpu_before = tree_cpu_seconds(pid)
            pane.keys("-l", "read the files one by one")
            started = time.time()
            pane.keys("Enter")

            def done(screen: str) -> bool:
                return FINAL in screen and (busy is None or busy not in screen)

            try:
                seen = pane.wait(done, 300, every=0.1)
            except RuntimeError as exc:
                print(f"  (a run lost: {str(exc).strip().splitlines()[-2:]})")
                return run
            run.wall = seen - started
            run.cpu = tree_cpu_seconds(pid) - cpu_before
            run.rss_after, run.hwm = rss_mib(pid), rss_mib(pid, "VmHWM")
            run.gaps = gaps(server)
            run.ok = len(server.request_times) == TURNS
        finally:
            pane.close()
    return run


def one_shot(top: Path, index: int) -> tuple[float, float, bool]:
    """pi's one-shot of the scenario: (wall, CPU incl. children, answered)."""
    cwd = make_project(top / f"oneshot{index}")
    env = bench_env(top / f"oneshot-home{index}")
    with FakeProviderServer(scenario()) as server:
        # Its session kept, as a TUI's is in effect: a TUI can rewind its session's files, so
        # it snapshots them before each call that may change them, and a one-shot keeping its
        # session does the same; one keeping none skips checkpoints (nothing could rewind it).
        argv = fake_pi_argv(server.openai_base_url, "-p", "read the files")
        start = time.perf_counter()
        process = subprocess.Popen(
            argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        assert process.stdout is not None
        out = process.stdout.read()
        _, _, usage = os.wait4(process.pid, 0)
        process.returncode = 0  # reaped above
        wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, out.decode().strip() == FINAL


def block_medians(runs: list[Run]) -> list[float]:
    """Median gap per block of :data:`BLOCK` turns, the runs pooled."""
    out = []
    for lo in range(0, TURNS - 1, BLOCK):
        pooled = [g for r in runs for g in r.gaps[lo : lo + BLOCK]]
        out.append(statistics.median(pooled) if pooled else float("nan"))
    return out


def report(name: str, runs: list[Run], oneshot_wall: float | None) -> float | None:
    good = [r for r in runs if r.ok]
    if not good:
        print(f"  {name}: no complete run")
        return None
    wall = statistics.median(r.wall for r in good)
    cpu = statistics.median(r.cpu for r in good)
    blocks = block_medians(good)
    growth = statistics.median(r.rss_after - r.rss_before for r in good)
    hwm = statistics.median(r.hwm for r in good)
    print(f"  {name} ({len(good)} of {len(runs)} runs):")
    ratio = f" = {wall / oneshot_wall:.2f}x the one-shot (target <= 1.3x)" if oneshot_wall else ""
    print(f"    prompt -> answer on screen: median {wall:.2f} s, CPU {cpu:.2f} s{ratio}")
    print(f"    gap by block of {BLOCK} turns (ms): " + ", ".join(f"{b:.1f}" for b in blocks))
    first, last = blocks[0], blocks[-1]
    print(
        f"    gap turns 1-20 {first:.1f} ms -> 181-199 {last:.1f} ms = {last / first:.2f}x "
        "(target <= 1.5x and <= 20 ms)"
    )
    print(
        f"    memory: {statistics.median(r.rss_before for r in good):.0f} MiB idle -> +{growth:.1f}"
        f" MiB after {TURNS} turns = {growth / TURNS:.3f} MiB/turn (target <= 0.25); "
        f"peak {hwm:.0f} MiB"
    )
    return wall


def main() -> None:
    if shutil.which("tmux") is None:
        print("tmux is not installed: skipped")
        return
    with tempfile.TemporaryDirectory() as tmp:
        top = Path(tmp)
        shots = [one_shot(top, i) for i in range(RUNS)]
        ok_shots = [s for s in shots if s[2]]
        print(f"{TURNS} turns from one prompt (bash and read alternating), {RUNS} runs each:")
        oneshot_wall = statistics.median(s[0] for s in ok_shots) if ok_shots else None
        if ok_shots:
            cpu = statistics.median(s[1] for s in ok_shots)
            print(f"  pi one-shot (-p): median {oneshot_wall:.2f} s, CPU {cpu:.2f} s")
        runs = [tui_run(top, i, pi_tui, "Esc to abort") for i in range(RUNS)]
        ours = report("pi TUI in tmux", runs, oneshot_wall)
        if pi_ts_available():
            theirs = [
                tui_run(top, 100 + i, lambda c, h, p: pi_ts_tui(h, p), None) for i in range(RUNS)
            ]
            ts_wall = report("pi-ts 0.73.1 TUI in tmux", theirs, None)
            if ours and ts_wall:
                print(f"  ratio pi / pi-ts: {ours / ts_wall:.2f}")
        else:
            print("  (pi-ts is not installed: .ci/run installs it)")


if __name__ == "__main__":
    main()
