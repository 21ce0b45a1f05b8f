"""Benchmark the search tools against plain ripgrep, and bash round-trip overhead.

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

from agent_core import AbortSignal  # noqa: E402
from tools import create_bash_tool, create_find_tool, create_grep_tool  # noqa: E402
from tools._rg import find_rg  # noqa: E402

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
    bash_ms = await _amedian_ms(
        lambda: bash.execute("b", bash.parameters.model_validate({"command": "true"}), cancel),
        runs=20,
    )
    raw_ms = _median_ms(lambda: subprocess.run(["bash", "-c", "true"], check=True), runs=20)
    rows.append(("bash 'true' round trip", bash_ms, raw_ms))

    print(
        f"tree: {site} ({files} *.py files, {matches} 'def __init__' lines); median of {RUNS} runs"
    )
    print(f"{'case':<44} {'tool ms':>9} {'plain ms':>9} {'ratio':>6}")
    for name, ours, plain in rows:
        ratio = f"{ours / plain:.2f}" if plain else "-"
        print(f"{name:<44} {ours:>9.1f} {plain or 0:>9.1f} {ratio:>6}")
    print(
        "plain = rg with the same flags via subprocess.run (bash row: subprocess.run bash -c true)"
    )


if __name__ == "__main__":
    asyncio.run(main())
