"""The monitor tool with real processes: lines cut, filtered, batched, paced and capped; its
end said; monitor_stop; a bad pattern; the line batcher against hostile output."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest

from agent_core import ToolError
from tests.tools._helpers import run
from tools import create_tools
from tools.bash._monitor_lines import LINE_LIMIT, LineBatcher
from tools.bash.monitor import MonitorDelivery, MonitorLimits, MonitorStopTool, MonitorTool
from tools.sandbox import Sandbox

FLOOD = (
    f'{sys.executable} -c "import sys\n'
    "for b in range(50):\n"
    "    sys.stdout.write(''.join(f'line {b * 200 + i}\\\\n' for i in range(200)))\n"
    "    sys.stdout.flush()\n"
    "open('flood.done', 'w').close()\"; sleep 30"
)


def _tools(
    tmp_path: Path, **limits: float
) -> tuple[MonitorTool, MonitorStopTool, list[MonitorDelivery]]:
    monitor, stop = create_tools(
        ["monitor", "monitor_stop"], tmp_path, sandbox=Sandbox(tmp_path, mode="off")
    )
    assert isinstance(monitor, MonitorTool) and isinstance(stop, MonitorStopTool)
    got: list[MonitorDelivery] = []
    monitor.sink = got.append
    monitor.limits = MonitorLimits(
        **{"interval_s": 0.1, "max_lines": 50, "max_line_bytes": 200, **limits}
    )  # type: ignore[arg-type]
    return monitor, stop, got


async def _until(predicate: object, what: str) -> None:
    for _ in range(1000):
        if predicate():  # type: ignore[operator]
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never: {what}")


# ------------------------------------------------------------------ the batcher


def test_lines_split_across_chunks_are_joined_and_a_last_line_counts() -> None:
    batcher = LineBatcher(None, 10, 100)
    for chunk in (b"al", b"pha\nbe", b"ta\r\n\x1b[31mgam", b"ma\x1b[0m"):
        batcher.feed(chunk)
    assert batcher.lines == ["alpha", "beta"]
    batcher.finish()
    assert batcher.take() == (["alpha", "beta", "gamma"], 0, 0)
    assert not batcher.pending


def test_a_pattern_keeps_matching_lines_and_the_cap_counts_the_rest() -> None:
    batcher = LineBatcher(re.compile(r"ERROR|FAIL"), 3, 100)
    batcher.feed(b"".join(f"ok {i}\nERROR {i}\n".encode() for i in range(10)))
    lines, dropped, truncated = batcher.take()
    assert lines == ["ERROR 0", "ERROR 1", "ERROR 2"] and dropped == 7 and truncated == 0
    assert batcher.total_matched == 10


def test_without_a_pattern_a_full_batch_counts_lines_without_decoding() -> None:
    batcher = LineBatcher(None, 5, 100)
    batcher.feed(b"x\n" * 100_000 + b"tail")
    batcher.feed(b" end\n")
    lines, dropped, _ = batcher.take()
    assert lines == ["x"] * 5 and dropped == 100_000 - 5 + 1  # "tail end" counted too


def test_long_lines_are_cut_and_a_line_without_end_is_bounded() -> None:
    batcher = LineBatcher(None, 10, 20)
    batcher.feed(("é" * 30 + "\n").encode())
    batcher.feed(b"y" * (LINE_LIMIT * 3))  # no newline yet: kept up to LINE_LIMIT
    assert len(batcher._partial) <= LINE_LIMIT
    batcher.feed(b"yyy\nnext\n")
    lines, _, truncated = batcher.take()
    assert lines[0] == "é" * 10 + "…" and lines[1] == "y" * 20 + "…" and lines[2] == "next"
    assert truncated == 2 and len(lines) == 3


def test_invalid_utf8_and_controls_never_break_it() -> None:
    batcher = LineBatcher(re.compile("bad"), 10, 100)
    batcher.feed(b"\xff\xfebad\x00\x07 bytes\n\n\n")
    assert batcher.take()[0] == ["\ufffd\ufffdbad bytes"]


# ------------------------------------------------------------------ the tool


async def test_a_flood_is_batched_paced_and_capped(tmp_path: Path) -> None:
    monitor, stop, got = _tools(tmp_path, interval_s=0.3)
    result = await run(monitor, command=FLOOD, description="flood")
    shell_id = result.details["monitor_id"]
    assert f'monitor_stop(id="{shell_id}")' in result.text
    await _until(lambda: (tmp_path / "flood.done").exists() and got, "the flood and a delivery")
    await _until(
        lambda: sum(len(d.lines) + d.dropped for d in got) >= 10_000 or len(got) > 3, "all"
    )
    stopped = await run(stop, id=shell_id)
    assert stopped.text.startswith(f"Stopped monitor {shell_id} after")
    assert all(len(d.lines) <= 50 for d in got)
    assert got[0].lines[:2] == ("line 0", "line 1") and got[0].dropped > 0
    assert "more matching lines dropped" in got[0].text()
    seen = sum(len(d.lines) + d.dropped for d in got)
    pending = stopped.text.count("\nline ")
    assert seen + pending <= 10_000
    assert len(got) < 20  # paced: at most one delivery per 0.3 s while the flood lasted
    assert monitor.sandbox.shells.get(shell_id).state == "killed"  # type: ignore[union-attr]
    count = len(got)
    await asyncio.sleep(0.4)
    assert len(got) == count  # stopped by the model: no last delivery


async def test_a_pattern_filters_and_the_end_is_delivered(tmp_path: Path) -> None:
    monitor, _, got = _tools(tmp_path)
    command = "for i in 1 2 3 4; do echo ok $i; echo FAIL test_$i; done; exit 3"
    await run(monitor, command=command, description="tests", pattern=r"^FAIL\b")
    await _until(lambda: got and got[-1].ended, "the end")
    lines = [line for d in got for line in d.lines]
    assert lines == ["FAIL test_1", "FAIL test_2", "FAIL test_3", "FAIL test_4"]
    assert got[-1].ended == "exited with code 3" and not got[-1].by_user
    assert got[-1].text().startswith("[monitor bash_1 · tests] ")
    assert "the monitor ended: exited with code 3" in got[-1].text().splitlines()[0]


async def test_a_user_kill_and_a_timeout_end_it(tmp_path: Path) -> None:
    monitor, _, got = _tools(tmp_path)
    await run(monitor, command="echo up; sleep 30", description="server")
    await _until(lambda: got, "the first line")
    await monitor.sandbox.shells.all()[0].kill()  # /bashes kill, /monitors stop
    await _until(lambda: got[-1].ended, "the end")
    assert got[-1].ended == "stopped by the user" and got[-1].by_user
    await run(monitor, command="sleep 30", description="slow", timeout=0.2)
    await _until(lambda: got[-1].ended == "stopped after its timeout", "the timeout")
    assert not got[-1].by_user


@pytest.mark.parametrize("pattern", ["(", "[a-", "(?P<x>a)(?P<x>b)", "a{2,1}"])
async def test_an_invalid_pattern_is_a_clear_error_and_starts_nothing(
    tmp_path: Path, pattern: str
) -> None:
    monitor, _, _ = _tools(tmp_path)
    with pytest.raises(ToolError, match=r"^Invalid pattern"):
        await run(monitor, command="echo hi", description="x", pattern=pattern)
    assert monitor.sandbox.shells.all() == []


async def test_monitor_stop_refuses_other_shells(tmp_path: Path) -> None:
    monitor, stop, _ = _tools(tmp_path)
    bash = monitor.bash
    shell, _ = await bash.start_background("sleep 30")
    with pytest.raises(ToolError, match="is not a monitor"):
        await run(stop, id=shell.id)
    with pytest.raises(ToolError, match="No background shell"):
        await run(stop, id="bash_99")
    await shell.kill()
