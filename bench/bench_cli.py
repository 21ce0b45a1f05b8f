"""Start-up against the floor: ``pi --version`` and the one-shot seed scenario.

The seed scenario (bash ls, read package.json, read hello.mjs, answer) runs against the fake
server both as pi's one-shot and as the stdlib reference loop ``bench/reference_loop.py`` (the
same requests with nothing but ``http.client``, ``json`` and ``subprocess``), interleaved, so
both see the same load. Reported: wall and CPU (user+sys of the process and its children, from
``wait4``) medians and their ratio, peak RSS, the time from spawn to the first request at the
server, and pi cold (no bytecode cache of pi's own code; of anything) against warm.

Targets (issue 25): seed one-shot <= 4x the reference measured in the same run, <= 40 MiB,
first request <= 0.25 s after start; ``--version`` <= 20 ms. The TypeScript pi runs the same
scenario in the same harness when it is installed.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._peer import pi_ts_argv, pi_ts_available, pi_ts_env
from bench._util import REPO, bench_env, fake_pi_argv
from tests.fakes.provider_server import FakeProviderServer
from tests.fakes.script import SEED_FINAL_TEXT, seed_script

RUNS = 11
PI = Path(sys.executable).parent / "pi"
REFERENCE = Path(__file__).resolve().parent / "reference_loop.py"
TIME = shutil.which("time", path="/usr/bin:/bin")  # GNU time: peak RSS of the child alone


class Run:
    """One measured process: wall and CPU seconds, peak RSS MiB, first request (s), ok."""

    def __init__(self, wall: float, cpu: float, rss: float, first: float, ok: bool) -> None:
        self.wall, self.cpu, self.rss, self.first, self.ok = wall, cpu, rss, first, ok


def measured(argv: list[str], cwd: Path, env: dict[str, str], server=None) -> Run:
    """Run ``argv`` under ``/usr/bin/time``: a child's peak RSS as the kernel reports it counts
    the memory of the process that forked it, and this one is far bigger than ``time``."""
    with tempfile.NamedTemporaryFile("r") as rss_file:
        wrapper = [TIME, "-f", "%M", "-o", rss_file.name] if TIME else []
        start = time.time()
        process = subprocess.Popen(
            [*wrapper, *argv], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        assert process.stdout is not None
        out = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.time() - start
        rss = int(rss_file.read().split()[-1]) if TIME else usage.ru_maxrss
    first = server.request_times[0] - start if server is not None and server.request_times else 0
    ok = os.waitstatus_to_exitcode(status) == 0
    if server is not None:
        ok = ok and out.decode().strip() == SEED_FINAL_TEXT
    return Run(wall, usage.ru_utime + usage.ru_stime, rss / 1024, first, ok)


def seed_pi(project: Path, env: dict[str, str]) -> Run:
    with FakeProviderServer(seed_script()) as server:
        argv = fake_pi_argv(
            server.openai_base_url,
            "--no-session",
            "explain this project",
        )
        return measured(argv, project, env, server)


def seed_pi_ts(project: Path, env: dict[str, str], root: Path) -> Run:
    with FakeProviderServer(seed_script()) as server:
        argv = pi_ts_argv(server.openai_base_url, root / "pi-ts-agent", "--no-session")
        return measured(
            [*argv, "-p", "explain this project"], project, pi_ts_env(env, root), server
        )


def seed_reference(project: Path, env: dict[str, str], template: Path) -> Run:
    with FakeProviderServer(seed_script()) as server:
        argv = [
            sys.executable,
            str(REFERENCE),
            server.openai_base_url,
            str(template),
            "explain this project",
        ]
        return measured(argv, project, env, server)


def request_template(project: Path, env: dict[str, str], into: Path) -> None:
    """pi's own system prompt and tools, for the reference loop to send the same bytes."""
    with FakeProviderServer(seed_script()) as server:
        argv = fake_pi_argv(
            server.openai_base_url,
            "--no-session",
            "explain this project",
        )
        subprocess.run(argv, cwd=project, env=env, capture_output=True, check=True)
        first = server.requests[0]
    system = first["messages"][0]["content"]
    into.write_text(
        json.dumps({"model": first["model"], "system": system, "tools": first["tools"]})
    )


def med(runs: list[Run], attr: str) -> float:
    return statistics.median(getattr(r, attr) for r in runs)


def cold_copy(root: Path) -> Path:
    """pi's packages copied without any ``__pycache__``: first on PYTHONPATH, never compiled
    (PYTHONDONTWRITEBYTECODE keeps them cold run after run)."""
    target = root / "cold"
    for package in ("agent_core", "tools", "pi_cli", "themes"):
        shutil.copytree(
            REPO / package, target / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    return target


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        (project / "package.json").write_text('{"name": "hello", "main": "hello.mjs"}\n')
        (project / "hello.mjs").write_text('console.log("Hello, world!");\n')
        env = bench_env(root / "home")
        template = root / "request.json"
        request_template(project, env, template)

        version = [measured([str(PI), "--version"], project, env) for _ in range(21)]
        print(
            f"pi --version: wall {med(version, 'wall') * 1000:.1f} ms, CPU "
            f"{med(version, 'cpu') * 1000:.1f} ms, peak RSS {med(version, 'rss'):.0f} MiB "
            "(goal <= 20 ms)"
        )

        pi_runs: list[Run] = []
        ref_runs: list[Run] = []
        ts_runs: list[Run] = []
        peer = pi_ts_available()
        for _ in range(RUNS):  # interleaved: all see the same load
            ref_runs.append(seed_reference(project, env, template))
            pi_runs.append(seed_pi(project, env))
            if peer:
                ts_runs.append(seed_pi_ts(project, env, root))
        status = "ok" if all(r.ok for r in pi_runs + ref_runs + ts_runs) else "FAILED"
        print(
            f"seed one-shot against the stdlib reference loop, interleaved, {RUNS} runs each [{status}]:"
        )
        rows = [("reference", ref_runs), ("pi", pi_runs)]
        rows += [("pi-ts", ts_runs)] if ts_runs else []
        for label, runs in rows:
            print(
                f"  {label:<9} wall {med(runs, 'wall'):.3f} s  CPU {med(runs, 'cpu'):.3f} s  "
                f"peak RSS {med(runs, 'rss'):.0f} MiB  first request {med(runs, 'first'):.3f} s"
            )
        ratio = med(pi_runs, "wall") / med(ref_runs, "wall")
        print(
            f"  ratio pi/reference: wall {ratio:.2f}x, "
            f"CPU {med(pi_runs, 'cpu') / med(ref_runs, 'cpu'):.2f}x"
            + (
                f"; pi/pi-ts: wall {med(pi_runs, 'wall') / med(ts_runs, 'wall'):.2f}x"
                if ts_runs
                else ""
            )
        )
        for what, value, target, unit in (
            ("seed vs the stdlib floor", ratio, 4.0, "x"),
            ("start -> first request", med(pi_runs, "first"), 0.25, " s"),
            ("peak RSS", med(pi_runs, "rss"), 40.0, " MiB"),
        ):
            met = "met" if value <= target else "NOT met"
            print(f"  target: {what} <= {target:g}{unit}: {value:.2f}{unit} [{met}]")

        cold_pi = dict(env, PYTHONPATH=str(cold_copy(root)))
        cold_all = dict(env, PYTHONPYCACHEPREFIX=str(root / "no-pycache"))
        warm, cold, colder = [], [], []
        for _ in range(5):
            warm.append(seed_pi(project, env))
            cold.append(seed_pi(project, cold_pi))
            colder.append(seed_pi(project, cold_all))
        status = "ok" if all(r.ok for r in warm + cold + colder) else "FAILED"
        print(f"seed one-shot cold against warm, interleaved, 5 runs each [{status}]:")
        for label, runs in (
            ("warm", warm),
            ("cold (no bytecode of pi's own code)", cold),
            ("cold (no bytecode at all)", colder),
        ):
            print(
                f"  {label:<36} wall {med(runs, 'wall'):.3f} s  CPU {med(runs, 'cpu'):.3f} s  "
                f"({med(runs, 'wall') / med(warm, 'wall'):.2f}x warm)"
            )

        litellm = [seed_pi(project, dict(env, PI_TRANSPORT="litellm")) for _ in range(2)]
        status = "ok" if all(r.ok for r in litellm) else "FAILED"
        print(
            f"seed one-shot through litellm: wall {med(litellm, 'wall'):.3f} s  "
            f"peak RSS {med(litellm, 'rss'):.0f} MiB [{status}]"
        )


if __name__ == "__main__":
    main()
