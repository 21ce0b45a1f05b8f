"""Containment with real processes, checked through /proc: after a timeout, an abort, the end
of the session or a ``kill -9`` of pi, nothing a command started remains: not a ``setsid``
daemon, not a SIGTERM-ignoring child, not a ``nohup &`` child. Each test runs unsandboxed
(the helper's reapers alone) and sandboxed (inside bubblewrap's PID namespace)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_core import AbortSignal, ToolError
from tests.tools._helpers import run
from tests.tools.sandbox.procs import marker, stubborn_tree, tag_env, tagged, wait_until
from tools import Sandbox, create_tools
from tools.bash import BashArgs

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
async def sandbox(tmp_path: Path, where: str) -> AsyncIterator[Sandbox]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    box = Sandbox(workspace, mode="required" if where == "inside" else "off")
    yield box
    await box.aclose()


def _tools(sandbox: Sandbox, tag: str) -> dict[str, object]:
    tools = create_tools(["bash", "bash_output", "bash_kill"], sandbox.workspace, sandbox=sandbox)
    tools[0].env = tag_env(tag)  # type: ignore[attr-defined]
    return {tool.name: tool for tool in tools}


async def _started(tag: str, names: str = "123") -> None:
    """Wait until every ``sleep <tag>N`` runs (the tree really was started)."""

    def up() -> bool:
        running = {arg for pid in tagged(tag) for arg in _args(pid)}
        return all(f"{tag}{n}" in running for n in names)

    for _ in range(500):
        if up():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"the command never started its children ({tagged(tag)})")


def _args(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    except OSError:
        return []


async def test_timeout_kills_daemons_and_term_ignoring_children(sandbox: Sandbox) -> None:
    tag = marker()
    bash = _tools(sandbox, tag)["bash"]
    task = asyncio.ensure_future(
        run(bash, command=stubborn_tree(tag) + f"; sleep {tag}4", timeout=4)  # type: ignore[arg-type]
    )
    await _started(tag, "1234")
    with pytest.raises(ToolError) as info:
        await task
    assert "timed out after 4 seconds" in str(info.value) and str(info.value).startswith("started")
    assert tagged(tag) == [], "a process started by the command survived its timeout"


async def test_abort_kills_daemons_and_term_ignoring_children(sandbox: Sandbox) -> None:
    tag = marker()
    bash = _tools(sandbox, tag)["bash"]
    cancel = AbortSignal()
    args = BashArgs(command=stubborn_tree(tag) + f"; sleep {tag}4")
    task = asyncio.ensure_future(bash.execute("c1", args, cancel, None))  # type: ignore[attr-defined]
    await _started(tag, "1234")
    cancel.abort()
    result = await asyncio.wait_for(task, 10)
    assert "Command aborted" in result.text and result.details["aborted"] is True
    assert tagged(tag) == [], "a process started by the command survived the abort"


async def test_leftovers_of_a_finished_command_die_with_the_session(sandbox: Sandbox) -> None:
    tag = marker()
    bash = _tools(sandbox, tag)["bash"]
    result = await run(bash, command=stubborn_tree(tag))  # type: ignore[arg-type]
    assert result.text == "started"
    await _started(tag)
    assert len(tagged(tag)) >= 3  # the call returned; its daemons still run
    await sandbox.aclose()
    assert tagged(tag) == [], "a daemon outlived the session"


async def test_background_shell_and_bash_kill(sandbox: Sandbox) -> None:
    tag = marker()
    tools = _tools(sandbox, tag)
    started = await run(
        tools["bash"],  # type: ignore[arg-type]
        command=stubborn_tree(tag) + f"; for i in 1 2 3; do echo tick $i; done; sleep {tag}4",
        background=True,
    )
    shell_id = started.details["background_id"]
    assert shell_id.startswith("bash_") and "bash_output" in started.text
    await _started(tag, "1234")
    seen = ""
    for _ in range(100):
        seen += (await run(tools["bash_output"], id=shell_id)).text  # type: ignore[arg-type]
        if "tick 3" in seen:
            break
        await asyncio.sleep(0.05)
    assert "started" in seen and "tick 3" in seen and f"[{shell_id}: running (pid " in seen
    again = await run(tools["bash_output"], id=shell_id)  # type: ignore[arg-type]
    assert again.text.startswith("(no new output)")  # only what is new since the last call
    killed = await run(tools["bash_kill"], id=shell_id)  # type: ignore[arg-type]
    assert killed.text == f"Killed {shell_id} and every process it started."
    assert tagged(tag) == []
    final = await run(tools["bash_output"], id=shell_id)  # type: ignore[arg-type]
    assert f"[{shell_id}: killed]" in final.text
    with pytest.raises(ToolError, match="No background shell 'bash_99'"):
        await run(tools["bash_kill"], id="bash_99")  # type: ignore[arg-type]


async def test_background_shells_die_with_the_session(sandbox: Sandbox) -> None:
    tag = marker()
    bash = _tools(sandbox, tag)["bash"]
    await run(bash, command=stubborn_tree(tag) + f"; sleep {tag}4", background=True)  # type: ignore[arg-type]
    await _started(tag, "1234")
    assert sandbox.shells.running == 1
    await sandbox.aclose()
    assert tagged(tag) == []


_CHILD = textwrap.dedent(
    """
    import asyncio, sys
    sys.path.insert(0, {repo!r})
    from tests.tools.sandbox.procs import tag_env
    from tests.tools._helpers import run
    from tools import Sandbox, create_bash_tool

    async def main():
        box = Sandbox({workspace!r}, mode={mode!r})
        bash = create_bash_tool({workspace!r}, box, env=tag_env({tag!r}))
        await run(bash, command={finished!r})  # returns; its daemons live on
        print("READY", flush=True)
        await run(bash, command={running!r}, timeout=600)  # still running at the kill

    asyncio.run(main())
    """
)


def test_kill_9_of_pi_takes_the_tools_down(tmp_path: Path, where: str) -> None:
    """pi's process dies without any cleanup: the sandbox's --die-with-parent (PID namespace)
    or the helper's parent-death signal must still take every command down."""
    tag = marker()
    workspace = tmp_path / "ws"
    workspace.mkdir()
    script = _CHILD.format(
        repo=str(REPO),
        workspace=str(workspace),
        mode="required" if where == "inside" else "off",
        tag=tag,
        finished=stubborn_tree(tag),
        running=f"sleep {tag}4",
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=workspace
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "READY"
        wanted = {f"{tag}{n}" for n in "1234"}
        assert wait_until(lambda: wanted <= {a for p in tagged(tag) for a in _args(p)})
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        assert wait_until(lambda: not tagged(tag), timeout=10), f"survivors: {tagged(tag)}"
    finally:
        if child.poll() is None:
            child.kill()
        for pid in tagged(tag):  # never leave a stray process behind a failed assertion
            os.kill(pid, signal.SIGKILL)


async def test_kept_background_shells_outlive_the_session(tmp_path: Path, where: str) -> None:
    """``--keep-bashes``: pi's exit stops the foreground commands, not the background shells,
    whose output the helper then writes to a log (no broken pipe kills them)."""
    tag = marker()
    workspace = tmp_path / "ws"
    workspace.mkdir()
    box = Sandbox(workspace, mode="required" if where == "inside" else "off", keep_background=True)
    tools = _tools(box, tag)
    loop = f"while :; do echo tick; sleep 0.1; done & sleep {tag}4"
    started = await run(tools["bash"], command=loop, background=True)  # type: ignore[arg-type]
    shell_id = started.details["background_id"]
    foreground = asyncio.ensure_future(run(tools["bash"], command=f"sleep {tag}5"))  # type: ignore[arg-type]
    await _started(tag, "45")
    report = box.kept_report()
    assert len(report) == 1 and report[0].startswith(f"{shell_id} (") and "stop: kill" in report[0]
    log = Path(report[0].split("output -> ")[1].split(";")[0])
    await box.aclose()
    with contextlib.suppress(ToolError):
        await foreground  # stopped by the shutdown
    running = {a for p in tagged(tag) for a in _args(p)}
    assert f"{tag}4" in running and f"{tag}5" not in running
    assert wait_until(lambda: log.exists() and log.read_text().count("tick") >= 3, timeout=10)
    stop = report[0].split("stop: ")[1].split(" (")[0]
    subprocess.run(stop, shell=True, check=True)
    assert wait_until(lambda: not tagged(tag), timeout=10), "the documented stop did not stop it"
    shutil.rmtree(box.temp_dir, ignore_errors=True)


async def test_a_bad_request_does_not_stop_the_helper(tmp_path: Path) -> None:
    from tools.sandbox._host import ProcessHost

    host = ProcessHost([], tmp_path)
    await host.ensure()
    try:
        out_r, out_w = os.pipe()
        status_r, status_w = os.pipe()
        host._send({"op": "spawn", "argv": ["true"]}, [out_w, status_w])  # no id
        os.close(out_w)
        os.close(status_w)
        assert os.read(status_r, 1000).startswith(b"error cannot start: 'id'")
        host._send({"op": "nonsense"})
        read_fd, write_fd = os.pipe()
        job = host.spawn("ok", ["/bin/sh", "-c", "echo fine"], str(tmp_path), {}, write_fd)
        os.close(write_fd)
        await asyncio.wait_for(job.gone.wait(), 10)
        assert job.returncode == 0 and os.read(read_fd, 100) == b"fine\n"
        spare_r, spare_w = os.pipe()
        failing = host.spawn("bad-cwd", ["/bin/sh"], str(tmp_path / "gone"), {}, spare_w)
        os.close(spare_w)
        os.close(spare_r)
        await asyncio.wait_for(failing.gone.wait(), 10)
        assert failing.error == "No such file or directory" and failing.returncode == 127
        for fd in (out_r, status_r, read_fd):
            os.close(fd)
    finally:
        await host.aclose()
