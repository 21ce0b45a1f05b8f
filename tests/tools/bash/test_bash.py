"""bash tool with real subprocesses: output, exit codes, stdin, truncation, abort and timeout."""

from __future__ import annotations

import asyncio
import os
import time
import tracemalloc
from pathlib import Path

import pytest

from agent_core import AbortSignal, ToolError, ToolResult
from tests.tools._helpers import run
from tools import create_bash_tool
from tools.bash import BashArgs


def _alive(pid: int) -> bool:
    """True if ``pid`` exists and is not a zombie (an unreaped corpse is not an orphan)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] not in (b"Z", b"X")


async def _wait_for_pid_file(path: Path) -> int:
    for _ in range(200):
        if path.exists() and path.read_text().strip():
            return int(path.read_text().split()[0])
        await asyncio.sleep(0.02)
    raise AssertionError("command never wrote its pid file")


async def test_runs_in_cwd_merging_stderr(tmp_path: Path) -> None:
    result = await run(create_bash_tool(tmp_path), command="pwd; echo err >&2; echo out")
    assert result.text.splitlines() == [str(tmp_path), "err", "out"]
    assert result.details == {"exit_code": 0, "truncated": False}


async def test_no_output(tmp_path: Path) -> None:
    assert (await run(create_bash_tool(tmp_path), command="true")).text == "(no output)"


async def test_nonzero_exit_is_error_with_output(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as info:
        await run(create_bash_tool(tmp_path), command="echo before; exit 3")
    assert str(info.value) == "before\n\nCommand exited with code 3"


async def test_stdin_is_closed(tmp_path: Path) -> None:
    start = time.monotonic()
    result = await run(create_bash_tool(tmp_path), command="read line; echo got=$?; cat")
    assert time.monotonic() - start < 5
    assert result.text == "got=1"


async def test_missing_cwd(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="Working directory does not exist"):
        await run(create_bash_tool(tmp_path / "gone"), command="true")


async def test_ansi_stripped(tmp_path: Path) -> None:
    result = await run(create_bash_tool(tmp_path), command=r"printf '\033[31mred\033[0m\n'")
    assert result.text == "red"


async def test_timeout_kills_process_tree(tmp_path: Path) -> None:
    pid_file = tmp_path / "bg.pid"
    start = time.monotonic()
    with pytest.raises(ToolError) as info:
        await run(
            create_bash_tool(tmp_path),
            command=f"sleep 100 & echo $! > {pid_file}; echo started; sleep 100",
            timeout=0.5,
        )
    assert time.monotonic() - start < 4
    message = str(info.value)
    assert message.startswith("started\n") and "timed out after 0.5 seconds" in message
    pid = int(pid_file.read_text())
    for _ in range(50):
        if not _alive(pid):
            break
        await asyncio.sleep(0.02)
    assert not _alive(pid), "background sleep survived the timeout"


async def test_timeout_sigkills_term_ignoring_children(tmp_path: Path) -> None:
    pid_file = tmp_path / "stubborn.pid"
    command = f"(trap '' TERM; sleep 100) & echo $! > {pid_file}; wait"
    with pytest.raises(ToolError, match="timed out"):
        await run(create_bash_tool(tmp_path), command=command, timeout=0.3)
    assert not _alive(int(pid_file.read_text()))


async def test_abort_by_task_cancel_kills_tree_and_reports(tmp_path: Path) -> None:
    """What the loop does on abort: set the signal and cancel the execute task."""
    pid_file = tmp_path / "bg.pid"
    cancel = AbortSignal()
    tool = create_bash_tool(tmp_path)
    args = BashArgs(command=f"sleep 100 & echo $! > {pid_file}; echo partial; sleep 100")
    task = asyncio.ensure_future(tool.execute("c1", args, cancel, None))
    pid = await _wait_for_pid_file(pid_file)
    await asyncio.sleep(0.1)
    start = time.monotonic()
    cancel.abort()
    task.cancel()
    result = await task
    assert time.monotonic() - start < 3
    assert isinstance(result, ToolResult)
    assert result.text.startswith("partial") and "Command aborted" in result.text
    assert result.details["aborted"] is True
    assert not _alive(pid)


async def test_abort_signal_alone_stops_command(tmp_path: Path) -> None:
    pid_file = tmp_path / "bg.pid"
    cancel = AbortSignal()
    tool = create_bash_tool(tmp_path)
    args = BashArgs(command=f"sleep 100 & echo $! > {pid_file}; sleep 100")
    task = asyncio.ensure_future(tool.execute("c1", args, cancel, None))
    pid = await _wait_for_pid_file(pid_file)
    cancel.abort()
    result = await asyncio.wait_for(task, 5)
    assert "Command aborted" in result.text and not _alive(pid)


async def test_background_child_does_not_hang_the_call(tmp_path: Path) -> None:
    """The shell exits while a backgrounded child still holds stdout: return promptly."""
    pid_file = tmp_path / "bg.pid"
    start = time.monotonic()
    result = await run(
        create_bash_tool(tmp_path), command=f"sleep 30 & echo $! > {pid_file}; echo done"
    )
    assert time.monotonic() - start < 2
    assert result.text == "done"
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5  # the call's reaper stops what the command left behind
    while _alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
    assert not _alive(pid), "a background child outlived its command"


async def test_truncated_output_keeps_tail_and_saves_full_file(tmp_path: Path) -> None:
    result = await run(create_bash_tool(tmp_path), command="seq 1 5000")
    body, note = result.text.split("\n\n")
    assert body.splitlines()[0] == "3001" and body.splitlines()[-1] == "5000"
    path = result.details["full_output_path"]
    assert note == f"[Showing lines 3001-5000 of 5000. Full output: {path}]"
    assert result.details["truncated"] is True
    assert Path(path).read_text() == "".join(f"{i}\n" for i in range(1, 5001))
    os.unlink(path)


async def test_huge_output_memory_bounded(tmp_path: Path) -> None:
    tracemalloc.start()
    try:
        result = await run(create_bash_tool(tmp_path), command="yes abcdefghij | head -c 50000000")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, f"peak Python allocations {peak / 1e6:.1f} MB for 50 MB of output"
    path = result.details["full_output_path"]
    assert os.path.getsize(path) == 50_000_000
    assert len(result.text.encode()) < 52 * 1024
    # 11-byte lines: the 2000-line limit bites before 50 KB does.
    assert "[Showing lines 4543456-4545455 of 4545455. Full output: " in result.text
    os.unlink(path)


async def test_on_update_streams_throttled_tail(tmp_path: Path) -> None:
    updates: list[ToolResult] = []
    command = "for i in $(seq 1 12); do echo tick $i; sleep 0.05; done"
    result = await run(create_bash_tool(tmp_path), on_update=updates.append, command=command)
    assert result.text.endswith("tick 12")
    assert 2 <= len(updates) <= 9  # ~0.6 s of output, at most one update per 100 ms
    assert all(update.text.startswith("tick 1") for update in updates)


async def test_on_update_shows_output_before_a_pause(tmp_path: Path) -> None:
    updates: list[ToolResult] = []
    await run(create_bash_tool(tmp_path), on_update=updates.append, command="echo first; sleep 0.4")
    assert [update.text for update in updates] == ["first"]


async def test_truncated_by_bytes_note(tmp_path: Path) -> None:
    command = "for i in $(seq 1 1000); do printf '%0100d\\n' $i; done"
    result = await run(create_bash_tool(tmp_path), command=command)
    body, note = result.text.split("\n\n")
    kept = body.splitlines()
    assert len(kept) == 506 and kept[-1] == f"{1000:0100d}"  # 507 lines of 101 bytes > 51200
    assert note.startswith("[Showing lines 495-1000 of 1000 (50.0KB limit). Full output: ")
    os.unlink(result.details["full_output_path"])


async def test_single_enormous_line_keeps_its_end(tmp_path: Path) -> None:
    result = await run(
        create_bash_tool(tmp_path), command="head -c 200000 /dev/zero | tr '\\0' x; echo END"
    )
    assert result.text.split("\n\n")[0].endswith("xEND")
    assert "[Showing last 50.0KB of line 1. Full output: " in result.text
    os.unlink(result.details["full_output_path"])
