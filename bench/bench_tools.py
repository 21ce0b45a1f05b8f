"""Benchmark the search tools against plain ripgrep, and bash round-trip overhead (unsandboxed
and inside the session's sandbox, which starts once and is joined by every later call).

Run directly (``make bench`` runs every bench/bench_*.py). Searches the installed
site-packages: a large real tree. Prints the median of a few runs per case.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import sysconfig
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agent_core import AbortSignal
from tools import Sandbox, create_bash_tool, create_find_tool, create_grep_tool
from tools._rg import find_rg
from tools.sandbox._bwrap import probe

RUNS = 5
BIG = 1_000_000


def _median_ms(fn: Callable[[], object], runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def _amedian_ms(fn: Callable[[], Awaitable[object]], runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        await fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _rg(args: list[str], cwd: Path) -> int:
    out = subprocess.run([find_rg(), *args], cwd=cwd, capture_output=True, check=False)
    return out.stdout.count(b"\n")


async def main() -> None:
    """Measure and print the table."""
    site = Path(sysconfig.get_path("purelib"))
    grep = create_grep_tool(site)
    find = create_find_tool(site)
    bash = create_bash_tool(site)
    cancel = AbortSignal()
    common = ["--hidden", "--no-require-git", "--glob=!.git"]

    def grep_args(limit: int) -> object:
        return grep.parameters.model_validate({"pattern": "def __init__", "limit": limit})

    def find_args(limit: int) -> object:
        return find.parameters.model_validate({"pattern": "*.py", "limit": limit})

    files = _rg(["--files", *common, "--glob=*.py"], site)
    matches = _rg(["-n", *common, "def __init__"], site)
    rows: list[tuple[str, float, float | None]] = []
    for label, limit in (("default limit", None), ("no limit", BIG)):
        g_limit = limit or 100
        f_limit = limit or 1000
        g_ms = await _amedian_ms(lambda g=g_limit: grep.execute("b", grep_args(g), cancel))
        f_ms = await _amedian_ms(lambda f=f_limit: find.execute("b", find_args(f), cancel))
        rg_g = _median_ms(lambda: _rg(["-n", "--null", *common, "def __init__"], site))
        rg_f = _median_ms(lambda: _rg(["--files", *common, "--glob=*.py"], site))
        rows.append(
            (f"grep 'def __init__' ({label}: {g_limit if limit is None else 'all'})", g_ms, rg_g)
        )
        rows.append((f"find '*.py' ({label}: {f_limit if limit is None else 'all'})", f_ms, rg_f))
    true_args = bash.parameters.model_validate({"command": "true"})
    bash_ms = await _amedian_ms(lambda: bash.execute("b", true_args, cancel), runs=20)
    raw_ms = _median_ms(lambda: subprocess.run(["bash", "-c", "true"], check=True), runs=20)
    rows.append(("bash 'true' round trip (no sandbox)", bash_ms, raw_ms))
    sandbox_rows, note = await _sandbox_rows(site, raw_ms, bash_ms)
    rows += sandbox_rows

    print(
        f"tree: {site} ({files} *.py files, {matches} 'def __init__' lines); median of {RUNS} runs"
    )
    print(f"{'case':<44} {'tool ms':>9} {'plain ms':>9} {'ratio':>6}")
    for name, ours, plain in rows:
        ratio = f"{ours / plain:.2f}" if plain else "-"
        print(f"{name:<44} {ours:>9.1f} {plain or 0:>9.1f} {ratio:>6}")
    print(
        "plain = rg with the same flags via subprocess.run (bash rows: subprocess.run bash -c true)"
    )
    print(note)


async def _sandbox_rows(
    cwd: Path, raw_ms: float, unsandboxed_ms: float
) -> tuple[list[tuple[str, float, float | None]], str]:
    """The sandbox's cost: its one start per session, then each call, beside plain bash."""
    found = probe()
    if not found.ok:
        return [], f"sandbox rows skipped: {found.reason}"
    box = Sandbox(cwd, mode="required")
    bash = create_bash_tool(cwd, box)
    args = bash.parameters.model_validate({"command": "true"})
    cancel = AbortSignal()
    start = time.perf_counter()
    await bash.execute("b", args, cancel)
    first_ms = (time.perf_counter() - start) * 1000
    call_ms = await _amedian_ms(lambda: bash.execute("b", args, cancel), runs=30)
    argv = [found.bwrap or "bwrap", *found.flags, "--ro-bind", "/", "/", "--proc", "/proc"]
    fresh_ms = _median_ms(lambda: subprocess.run([*argv, "--dev", "/dev", "true"], check=True))
    await box.aclose()
    rows: list[tuple[str, float, float | None]] = [
        ("bash 'true' round trip (sandboxed)", call_ms, raw_ms),
        ("first sandboxed call (bwrap + helper start)", first_ms, None),
        ("a fresh bwrap per call, for comparison", fresh_ms, raw_ms),
    ]
    verdict = "within" if call_ms <= 15 else "OVER"
    note = (
        f"sandbox overhead per call: {call_ms:.1f} ms median sandboxed vs {unsandboxed_ms:.1f} ms "
        f"unsandboxed ({call_ms - unsandboxed_ms:+.1f} ms; {verdict} the 15 ms target); the "
        f"sandbox starts once per session ({first_ms:.0f} ms) and every later call joins it"
    )
    return rows, note


if __name__ == "__main__":
    asyncio.run(main())
