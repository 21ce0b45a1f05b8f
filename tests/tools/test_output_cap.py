"""The full-output file is capped: past the cap the middle is dropped, the head and a rolling
tail stay (errors live at the end), the model is told how much went, and the command goes on."""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import pytest

from agent_core import ToolError
from tests.tools._helpers import run
from tools import Sandbox, create_bash_tool
from tools._output import SpillFile

MIB = 1024 * 1024


def test_spill_file_keeps_head_marker_and_the_latest_tail(tmp_path: Path) -> None:
    rng = random.Random(5)
    stream = b"".join(b"line %07d\n" % i for i in range(1_000_000))  # 13 MB
    spill = SpillFile(tmp_path, cap=MIB)
    at = 0
    while at < len(stream):
        size = rng.randrange(1, 300_000)
        spill.write(stream[at : at + size])
        at += size
        assert os.path.getsize(spill.path) <= MIB + 300_000  # never more than the cap + a chunk
    spill.close()
    data = Path(spill.path).read_bytes()
    head, rest = data.split(b"\n\n[... pi dropped ", 1)
    count, tail = rest.split(b" bytes of output here: over the 1.0MB cap ...]\n\n", 1)
    assert head == stream[: MIB // 2]
    assert stream.endswith(tail) and len(tail) >= MIB // 4 - 300_000
    assert int(count) == spill.dropped == len(stream) - len(head) - len(tail)


def test_spill_file_under_the_cap_is_the_whole_output(tmp_path: Path) -> None:
    spill = SpillFile(tmp_path, cap=MIB)
    spill.write(b"a" * 1000)
    spill.write(b"b" * 1000)
    spill.close()
    assert Path(spill.path).read_bytes() == b"a" * 1000 + b"b" * 1000 and spill.dropped == 0


async def test_bash_output_past_the_cap_keeps_the_end_and_says_so(tmp_path: Path) -> None:
    box = Sandbox(tmp_path, mode="off", output_cap=MIB)
    try:
        bash = create_bash_tool(tmp_path, box)
        command = "head -c 30000000 /dev/zero | tr '\\0' z; echo; echo THE-END; exit 3"
        with pytest.raises(ToolError) as info:
            await run(bash, command=command)
    finally:
        await box.aclose()
    text = str(info.value)
    assert "THE-END" in text and text.endswith("Command exited with code 3")  # it ran to the end
    assert re.search(
        r"\[Output passed the 1\.0MB cap: 2\d\.\dMB were dropped from the middle", text
    )
    path = Path(text.split("Full output: ")[1].split("]")[0])
    data = path.read_bytes()
    assert len(data) <= MIB + 256 * 1024
    assert data.startswith(b"z" * 1000) and data.endswith(b"\nTHE-END\n")
    path.unlink()


async def test_a_runaway_writer_cannot_fill_the_disk_before_its_timeout(tmp_path: Path) -> None:
    box = Sandbox(tmp_path, mode="off", output_cap=MIB)
    try:
        bash = create_bash_tool(tmp_path, box)
        with pytest.raises(ToolError, match="timed out after 3 seconds") as info:
            await run(bash, command="cat /dev/zero", timeout=3)
    finally:
        await box.aclose()
    path = Path(str(info.value).split("Full output: ")[1].split("]")[0])
    assert path.stat().st_size <= MIB + 256 * 1024
    assert "were dropped from the middle" in str(info.value)
    path.unlink()
