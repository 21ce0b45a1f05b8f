"""A finished one-shot ends without the interpreter's teardown, and loses nothing by it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _run(script: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", **env},
        timeout=60,
    )


EXIT_WITH_WORK_PENDING = """
import atexit, sys, weakref
from pi_cli import fast_exit

class Held: pass
held = Held()
weakref.finalize(held, lambda: open("finalized", "w").write("yes"))
atexit.register(lambda: open("atexit", "w").write("yes"))
sys.stdout.write("x" * 3_000_000)  # more than any pipe holds: written while the reader reads
sys.stderr.write("tail of stderr")
fast_exit.arm()
fast_exit.leave(5)
open("teardown", "w").write("the normal way")  # never reached
"""


def test_leave_flushes_runs_atexit_and_finalizers_and_keeps_the_code(tmp_path: Path) -> None:
    done = _run(EXIT_WITH_WORK_PENDING, tmp_path)
    assert done.returncode == 5
    assert done.stdout == b"x" * 3_000_000 and done.stderr.endswith(b"tail of stderr")
    assert (tmp_path / "atexit").read_text() == "yes"
    assert (tmp_path / "finalized").read_text() == "yes"
    assert not (tmp_path / "teardown").exists()


NON_DAEMON_THREAD = """
import threading, time
from pi_cli import fast_exit

def work():
    time.sleep(0.3)
    open("thread", "w").write("finished")

threading.Thread(target=work).start()
fast_exit.arm()
fast_exit.leave(7)
print("returned")
"""


def test_a_live_non_daemon_thread_means_the_normal_exit(tmp_path: Path) -> None:
    done = _run(NON_DAEMON_THREAD, tmp_path)
    assert done.stdout.strip() == b"returned" and done.returncode == 0
    assert (tmp_path / "thread").read_text() == "finished"  # joined, as the normal exit does


def test_not_armed_or_switched_off_returns(tmp_path: Path) -> None:
    script = "from pi_cli import fast_exit\nfast_exit.leave(3)\nprint('returned')\n"
    assert _run(script, tmp_path).stdout.strip() == b"returned"
    armed = "from pi_cli import fast_exit\nfast_exit.arm()\nfast_exit.leave(3)\nprint('back')\n"
    assert _run(armed, tmp_path, PI_NO_FAST_EXIT="1").stdout.strip() == b"back"
    assert _run(armed, tmp_path).returncode == 3


def test_a_closed_stdout_takes_the_normal_way(tmp_path: Path) -> None:
    script = (
        "import os, sys\nfrom pi_cli import fast_exit\n"
        "sys.stdout.write('x' * 100)\nos.close(1)\n"
        "fast_exit.arm()\nfast_exit.leave(4)\nsys.stderr.write('returned')\n"
    )
    done = _run(script, tmp_path)
    assert b"returned" in done.stderr  # flushing failed: leave() returned instead of exiting


def test_a_one_shot_with_a_session_keeps_every_entry(tmp_path: Path) -> None:
    from tests.fakes.provider_server import FakeProviderServer
    from tests.fakes.script import SEED_FINAL_TEXT, seed_script

    project = tmp_path / "project"
    project.mkdir()
    (project / "package.json").write_text('{"name": "hello"}\n')
    (project / "hello.mjs").write_text('console.log("hello")\n')
    home = tmp_path / "home"
    with FakeProviderServer() as server:
        server.add(*seed_script())
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pi_cli.cli",
                "--model",
                "openai/fake",
                "--api-base",
                server.openai_base_url,
                "--api-key",
                "sk-x",
                "-p",
                "explain this project",
            ],  # fmt: skip
            capture_output=True,
            cwd=project,
            env={
                "PYTHONPATH": str(REPO),
                "PATH": "/usr/bin:/bin",
                "PI_HOME": str(home),
                "PI_NO_LOCAL_PROBE": "1",
            },  # fmt: skip
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().strip() == SEED_FINAL_TEXT
    (session,) = home.glob("sessions/*/*.jsonl")
    roles = [
        entry["message"]["role"]
        for entry in map(json.loads, session.read_text().splitlines())
        if entry.get("type") == "message"
    ]
    assert roles == ["user", "assistant", "toolResult", "assistant", "toolResult",
                     "assistant", "toolResult", "assistant"]  # fmt: skip
