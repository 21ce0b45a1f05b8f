"""The read-only classifier's cost per bash command (issue 24: bash overhead unchanged).

Classifies a corpus of everyday commands (readers with options, pipes, globs, git, one that
asks) against this checkout as the workspace, the way the permission gate does before a bash
call; prints the median time per command over several rounds. Prints numbers.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pi_cli.shell.permissions._readonly import Context, classify  # noqa: E402
from pi_cli.shell.permissions.workspace import Workspace  # noqa: E402

CORPUS = [
    "ls -la",
    "cat README.md | head -n 20",
    "grep -rn 'def main' pi_cli",
    "git status",
    "git log --oneline -5",
    "sort -u -k2,2 README.md",
    "wc -l pi_cli/shell/*.py",
    "find . -name '*.py' -maxdepth 2",
    "date +%F",
    "rg -n --hidden -g '*.py' foo pi_cli",
    "sort --compress-prog=sh README.md",
]
ROUNDS, REPEAT = 7, 100


def main() -> None:
    """Measure and print."""
    context = Context(Workspace(ROOT))
    for command in CORPUS:
        classify(command, context)  # tables parsed, PATH looked up once
    rounds = []
    for _ in range(ROUNDS):
        start = time.process_time()
        for _ in range(REPEAT):
            for command in CORPUS:
                classify(command, context)
        rounds.append((time.process_time() - start) / (REPEAT * len(CORPUS)) * 1000)
    print(f"classify: {statistics.median(rounds):.3f} ms per command (median of {ROUNDS} rounds "
          f"of {REPEAT} x {len(CORPUS)} commands, CPU time, PATH lookups and realpath included)")  # fmt: skip


if __name__ == "__main__":
    main()
