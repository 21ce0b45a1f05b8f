"""``pi review`` on a 5,000-line diff (issue 32): the time from starting ``pi review`` to its
first request reaching the (fake) provider, and end to end; median of 7 runs.

The repository is built here: a 5,000-line file committed, then every 7th line changed and
ten more files of 200 added lines (one diff of ~8,800 lines, reviewed in parts by parallel
sub-agents with the default ``review.chunkLines``). The fake provider answers each part with
a finding; the first request's arrival (``FakeProviderServer.request_times``) against the
process's start gives the figure. Also: what ``import pi_cli.cli`` + the one-shot path load of
the review package (nothing: ``pi_cli.shell.review`` is imported only by ``pi review``/``/review``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._util import bench_env, fake_pi_argv, median
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import Turn

RUNS = 7


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=b@example.com", "-c", "user.name=B", *args],
        cwd=cwd, check=True, capture_output=True,
    )  # fmt: skip


def _repo(root: Path) -> int:
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    lines = [f"value_{n} = {n}\n" for n in range(1, 5001)]
    (root / "big.py").write_text("".join(lines))
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    changed = [f"value_{n} = {n} + 1\n" if n % 7 == 0 else line for n, line in enumerate(lines, 1)]
    (root / "big.py").write_text("".join(changed))
    for k in range(10):
        (root / f"mod{k}.py").write_text("".join(f"x{i} = {i}\n" for i in range(200)))
    diff = subprocess.run(["git", "diff", "HEAD"], cwd=root, capture_output=True, text=True)
    untracked = 10 * 205
    return diff.stdout.count("\n") + untracked


def _first_request(
    root: Path, tmp: str, argv_tail: list[str], answer: str
) -> tuple[float, float, str]:
    home = Path(tempfile.mkdtemp(dir=tmp))
    with FakeProviderServer([Turn(text=answer) for _ in range(40)]) as server:
        argv = fake_pi_argv(server.openai_base_url)
        argv = argv[:3] + argv_tail[:1] + argv[3:] + argv_tail[1:]
        start = time.time()
        done = subprocess.run(argv, cwd=root, env=bench_env(home), capture_output=True, text=True)
        end = time.time()
        assert done.returncode == 0, done.stderr
        return server.request_times[0] - start, end - start, done.stdout


def main() -> None:
    answer = json.dumps({"summary": "ok", "findings": [
        {"file": "big.py", "startLine": 7, "endLine": 7, "severity": "low", "title": "t", "explanation": "e"}
    ]})  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        size = _repo(root)
        review, one_shot, totals, parts = [], [], [], 0
        for _ in range(RUNS):  # interleaved: both share the machine's load
            first, total, out = _first_request(root, tmp, ["review", "--json"], answer)
            review.append(first)
            totals.append(total)
            parts = json.loads(out)["stats"]["chunks"]
            one_shot.append(_first_request(root, tmp, ["-p", "hello"], answer)[0])
        print(f"pi review, a {size:,}-line diff in {parts} parts (median of {RUNS}):")
        print(f"  start to the first request: {median(review) * 1000:.0f} ms")
        print(f"  (pi -p hello in the same repository: {median(one_shot) * 1000:.0f} ms)")
        print(f"  end to end (fake provider): {median(totals) * 1000:.0f} ms")
    probe = (
        "import sys, pi_cli.cli, pi_cli.launch, pi_cli.modes.print_mode, pi_cli.shell;"
        "pi_cli.shell.CodingAgent;"
        "print(sorted(m for m in sys.modules if 'review' in m) or 'none')"
    )
    env = bench_env(Path(tempfile.mkdtemp()))
    loaded = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    print(
        f"  review modules loaded by the one-shot path: {loaded.stdout.strip() or loaded.stderr[-200:]}"
    )


if __name__ == "__main__":
    main()
