"""Snapshot cost of checkpoints for a generated 2,000-file project (``take_snapshot``).

Measured: the first snapshot (every file hashed into the shadow repository), the incremental
one after one file changed (the one taken before a changing turn; budget <= 50 ms), one with
nothing changed, and a first snapshot of a new session in the same workspace (its index starts
as a copy of the newest one). Also a restore of 20 changed files, for scale.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FILES = 2000
RUNS = 15
BUDGET_S = 0.050


def generate(root: Path) -> int:
    """A project of FILES source files in nested packages (plus ignored build output)."""
    rng = random.Random(7)
    total = 0
    for i in range(FILES):
        directory = root / "src" / f"pkg{i % 40}" / f"sub{i % 7}"
        directory.mkdir(parents=True, exist_ok=True)
        body = "\n".join(
            f"def f{j}(x):\n    return x * {j + i}\n" for j in range(rng.randint(5, 80))
        )
        (directory / f"module_{i}.py").write_text(body)
        total += len(body)
    (root / ".gitignore").write_text("build/\n*.pyc\n")
    (root / "build").mkdir()
    for i in range(300):
        (root / "build" / f"obj{i}.o").write_bytes(b"\0" * 4096)
    return total


def timed(work, runs: int = RUNS) -> tuple[float, float]:  # a callable
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["PI_HOME"] = str(Path(tmp) / "pi_home")
        from pi_cli.shell.checkpoints.git import ShadowGit
        from pi_cli.shell.checkpoints.restore import restore_tree
        from pi_cli.shell.checkpoints.snapshot import Limits, take_snapshot

        project = Path(tmp) / "project"
        project.mkdir()
        size = generate(project)
        shadow = ShadowGit(project)
        limits = Limits()
        start = time.perf_counter()
        first = take_snapshot(shadow, "bench", limits)
        first_s = time.perf_counter() - start
        print(
            f"project: {FILES} files, {size / 1e6:.1f} MB (+300 ignored); first snapshot "
            f"{first_s * 1000:.0f} ms ({first.changed} files hashed)"
        )
        target = project / "src" / "pkg1" / "sub1" / "module_1.py"
        counter = [0]
        tree = [first.tree]

        def one_change() -> None:
            counter[0] += 1
            target.write_text(f"# edit {counter[0]}\n" + target.read_text())
            tree[0] = take_snapshot(shadow, "bench", limits, tree[0]).tree

        median, best = timed(one_change)
        verdict = "OK" if median <= BUDGET_S else "OVER BUDGET"
        print(
            f"incremental snapshot, one file changed: median {median * 1000:.1f} ms, best "
            f"{best * 1000:.1f} ms (budget {BUDGET_S * 1000:.0f} ms) {verdict}"
        )
        median, best = timed(lambda: take_snapshot(shadow, "bench", limits, tree[0]))
        print(
            f"snapshot, nothing changed: median {median * 1000:.1f} ms, best {best * 1000:.1f} ms"
        )
        start = time.perf_counter()
        take_snapshot(shadow, "second-session", limits)
        print(f"first snapshot of a second session: {(time.perf_counter() - start) * 1000:.0f} ms")
        files = sorted((project / "src").rglob("*.py"))[:20]
        for path in files:
            path.write_text("changed\n")
        changed = take_snapshot(shadow, "bench", limits, tree[0]).tree
        start = time.perf_counter()
        restore_tree(shadow, changed, first.tree)
        print(f"restore of 20 changed files: {(time.perf_counter() - start) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
