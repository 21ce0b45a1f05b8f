"""The containment API (:mod:`tools.sandbox.processes`) with real processes, checked through /proc: a
started process's tree ends with :func:`stop` even when its root exits first; at exit every
process below pi ends (orphans it adopted included) except kept ones; pi killed by SIGKILL
still takes its direct children down."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.tools.sandbox.procs import marker, tag_env, tagged, wait_until
from tools.sandbox import processes

REPO = Path(__file__).resolve().parents[3]


def _running(tag: str, names: str) -> bool:
    args = {a for pid in tagged(tag) for a in _args(pid)}
    return all(f"{tag}{n}" in args for n in names)


def _args(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    except OSError:
        return []


async def test_stop_ends_the_whole_tree_even_a_setsid_grandchild(tmp_path: Path) -> None:
    tag = marker()
    script = f"setsid sleep {tag}1 & (trap '' TERM; sleep {tag}2) & sleep {tag}3"
    process = await processes.start(["sh", "-c", script], env=tag_env(tag), cwd=tmp_path)
    assert wait_until(lambda: _running(tag, "123"))
    assert os.getpgid(process.pid) == process.pid  # its own session and group
    assert process.pid in processes.running()
    await processes.stop(process, grace=0.2)
    assert wait_until(lambda: not tagged(tag)), f"survivors: {tagged(tag)}"
    assert process.returncode is not None and process.pid not in processes.running()


_PI = textwrap.dedent(
    """
    import asyncio, subprocess, sys
    sys.path.insert(0, {repo!r})
    from tools.sandbox import processes

    async def main():
        env = {env!r}
        # An orphan at once (its parent exits): only a subreaper keeps it in pi's tree.
        await processes.start(["sh", "-c", "setsid sleep {tag}1 < /dev/null &"], env=env)
        await processes.start(["sleep", "{tag}2"], env=env)
        # (asyncio kills a running child whose transport closes: kept ones are Popen'd.)
        processes.popen(["sleep", "{tag}3"], env=env, keep=True, stdin=subprocess.DEVNULL)
        processes.popen(["sleep", "{tag}4"], env=env, stdin=subprocess.DEVNULL)
        print("subreaper" if processes.is_subreaper() else "none", flush=True)
        if sys.argv[1] == "hang":
            await asyncio.sleep(600)

    asyncio.run(main())
    """
)


def _pi(tag: str, how: str) -> subprocess.Popen[str]:
    script = _PI.format(repo=str(REPO), env=tag_env(tag), tag=tag)
    return subprocess.Popen([sys.executable, "-c", script, how], stdout=subprocess.PIPE, text=True)


def test_at_exit_everything_below_pi_ends_but_what_is_kept() -> None:
    tag = marker()
    pi = _pi(tag, "exit")
    assert pi.stdout is not None and pi.stdout.readline().strip() == "subreaper"
    assert pi.wait(30) == 0
    try:
        assert wait_until(lambda: _running(tag, "3") and not _running(tag, "1")), tagged(tag)
        assert not any(_running(tag, n) for n in "124"), f"outlived pi: {tagged(tag)}"
    finally:
        for pid in tagged(tag):
            os.kill(pid, signal.SIGKILL)


def test_a_killed_pi_takes_its_direct_children_down() -> None:
    tag = marker()
    pi = _pi(tag, "hang")
    assert pi.stdout is not None and pi.stdout.readline().strip() == "subreaper"
    assert wait_until(lambda: _running(tag, "1234"))
    pi.kill()  # no exit code runs: only the parent-death signal acts
    pi.wait(30)
    try:
        assert wait_until(lambda: not _running(tag, "2") and not _running(tag, "4")), tagged(tag)
    finally:
        for pid in tagged(tag):
            os.kill(pid, signal.SIGKILL)


async def test_exited_wakes_when_the_process_ends_and_gives_up_at_the_timeout() -> None:
    quick = subprocess.Popen(["sleep", "0.2"])
    await processes.exited(quick, timeout=10)
    assert quick.poll() == 0  # woken by the exit itself, not by the timeout
    slow = subprocess.Popen(["sleep", "30"])
    try:
        await processes.exited(slow, timeout=0.1)
        assert slow.poll() is None  # still running: the wait gave up
    finally:
        slow.kill()
        slow.wait()
    await processes.exited(slow, timeout=10)  # reaped already: returns at once
