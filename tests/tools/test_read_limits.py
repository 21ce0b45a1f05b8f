"""read never holds more than its limits, whatever the file: long lines are cut and marked,
a 2 GB file without a newline stays cheap (generated as a sparse file, never committed)."""

from __future__ import annotations

import io
import random
import subprocess
import tracemalloc
from pathlib import Path

import pytest

import tools._lines as lines_module
from tests.tools._helpers import run
from tools import create_read_tool
from tools._lines import read_window


def _reference(data: bytes, start: int, wanted: int, max_bytes: int, cap: int) -> tuple:
    parts = data.split(b"\n")
    offsets, at = [], 0
    for part in parts:
        offsets.append(at)
        at += len(part) + 1
    if parts and parts[-1] == b"":
        parts.pop()
    window, kept = [], 0
    for number, line in enumerate(parts, 1):
        if number < start:
            continue
        if len(window) >= wanted or kept > max_bytes:
            break
        window.append((number, line[:cap], len(line), offsets[number - 1]))
        kept += len(line[:cap]) + 1
    return window, len(parts)


def test_read_window_matches_a_plain_split_at_every_chunk_boundary(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(lines_module, "CHUNK", 7)  # lines and newlines straddle chunks
    rng = random.Random(13)
    for _ in range(3000):
        data = bytes(rng.choice(b"ab\n") for _ in range(rng.randrange(0, 60)))
        args = (
            rng.randrange(1, 8),
            rng.randrange(1, 6),
            rng.randrange(1, 30),
            rng.randrange(1, 10),
        )
        window, total = read_window(io.BytesIO(data), *args)
        got = ([(w.number, w.head, w.length, w.offset) for w in window], total)
        assert got == _reference(data, *args), (data, args)


async def test_long_lines_are_cut_and_marked_and_the_hint_reads_on(tmp_path: Path) -> None:
    long = "é" * 40_000  # 80 KB of two-byte characters: the cut falls mid-character
    (tmp_path / "f.txt").write_text(f"first\n{long}\nlast\n", encoding="utf-8")
    result = await run(create_read_tool(tmp_path), path="f.txt")
    first, cut, last = result.text.split("\n")
    assert first == "first" and last == "last"
    text, marker = cut.split(" … ")
    assert text == "é" * (48 * 1024 // 2)
    assert marker.startswith("[line 2 cut: 48.0KB of 78.1KB shown; read on with bash: tail -c +")
    command = marker.split("read on with bash: ")[1].rstrip("]")
    more = subprocess.run(command, shell=True, cwd=tmp_path, capture_output=True, check=True)
    assert more.stdout.decode("utf-8").startswith("é" * 100)  # the very next characters
    assert result.details["total_lines"] == 3 and result.details["long_lines"] == [2]


async def test_a_2_gb_line_without_newline_stays_cheap(tmp_path: Path) -> None:
    path = tmp_path / "huge.log"
    with path.open("wb") as handle:
        handle.write(b"x" * 10_000)  # text first (the binary sniff), then a 2 GB hole of NULs
        handle.truncate(2 * 1024**3)
    tracemalloc.start()
    try:
        result = await run(create_read_tool(tmp_path), path="huge.log")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # Memory is the promise; time is not asserted (a loaded machine makes any bound flaky).
    assert peak < 8 * 1024**2, f"peak Python allocations {peak / 1e6:.1f} MB"
    assert result.text.startswith("x" * 10_000)
    assert "[line 1 cut: 48.0KB of 2.0GB shown" in result.text
    assert result.details["total_lines"] == 1


async def test_a_big_file_of_short_lines_counts_without_keeping(tmp_path: Path) -> None:
    path = tmp_path / "many.txt"
    with path.open("wb") as handle:
        for block in range(50):
            handle.write(b"".join(b"line %d\n" % (block * 20_000 + i) for i in range(20_000)))
    tracemalloc.start()
    try:
        result = await run(create_read_tool(tmp_path), path="many.txt", offset=500_000, limit=3)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result.text.split("\n\n")[0] == "line 499999\nline 500000\nline 500001"
    assert result.details["total_lines"] == 1_000_000
    assert peak < 8 * 1024**2
