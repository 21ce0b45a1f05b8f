"""Truncation math: head/tail by lines and bytes, never mid-line."""

from __future__ import annotations

import os

from tools._output import OutputBuffer
from tools._truncate import format_size, truncate_head, truncate_line, truncate_tail


def test_head_by_lines() -> None:
    text = "\n".join(f"line{i}" for i in range(1, 11)) + "\n"
    cut = truncate_head(text, max_lines=3, max_bytes=10_000)
    assert cut.content == "line1\nline2\nline3"
    assert (cut.truncated, cut.truncated_by, cut.total_lines, cut.output_lines) == (
        True,
        "lines",
        10,
        3,
    )


def test_head_by_bytes_never_mid_line() -> None:
    text = "aaaa\nbbbb\ncccc\n"
    cut = truncate_head(text, max_lines=100, max_bytes=12)  # "aaaa\nbbbb" = 9 bytes, +5 > 12
    assert cut.content == "aaaa\nbbbb"
    assert cut.truncated_by == "bytes"
    assert cut.output_bytes == 9


def test_head_first_line_too_big() -> None:
    cut = truncate_head("x" * 100 + "\nshort", max_lines=10, max_bytes=50)
    assert cut.first_line_exceeds_limit and cut.content == "" and cut.output_lines == 0


def test_head_counts_utf8_bytes() -> None:
    cut = truncate_head("é" * 10 + "\n" + "b", max_lines=10, max_bytes=20)
    assert cut.content == "é" * 10 and cut.output_bytes == 20


def test_no_truncation_reports_totals() -> None:
    cut = truncate_head("a\nb\n")
    assert not cut.truncated and cut.total_lines == 2 and cut.content == "a\nb"


def test_tail_by_lines_and_bytes() -> None:
    text = "\n".join(str(i) for i in range(100))
    cut = truncate_tail(text, max_lines=5, max_bytes=1000)
    assert cut.content == "95\n96\n97\n98\n99" and cut.truncated_by == "lines"
    cut = truncate_tail("aaaa\nbbbb\ncccc", max_lines=100, max_bytes=10)
    assert cut.content == "bbbb\ncccc" and cut.truncated_by == "bytes"


def test_tail_single_huge_line_keeps_its_end() -> None:
    cut = truncate_tail("head\n" + "x" * 100 + "END", max_lines=10, max_bytes=20)
    assert cut.last_line_partial and cut.content.endswith("END") and len(cut.content) == 20


def test_truncate_line_and_format_size() -> None:
    assert truncate_line("a" * 10, 5) == ("aaaaa... [truncated]", True)
    assert truncate_line("abc", 5) == ("abc", False)
    assert (format_size(100), format_size(51200), format_size(3 * 1024 * 1024)) == (
        "100B",
        "50.0KB",
        "3.0MB",
    )


def test_output_buffer_small_stays_in_memory() -> None:
    buf = OutputBuffer(max_lines=10, max_bytes=100)
    buf.add(b"one\ntwo\n")
    assert not buf.spilled and buf.total_lines == 2
    assert buf.tail().content == "one\ntwo" and not buf.tail().truncated


def test_output_buffer_spills_and_stays_bounded() -> None:
    buf = OutputBuffer(max_lines=50, max_bytes=1000)
    for i in range(10_000):
        buf.add(f"line {i}\n".encode())
    buf.close()
    assert buf.spilled and buf._held <= 2 * 1000 + 20
    cut = buf.tail()
    assert cut.truncated and cut.total_lines == 10_000
    assert cut.content.splitlines()[-1] == "line 9999" and cut.output_lines == 50
    assert buf.full_output_path is not None
    with open(buf.full_output_path, "rb") as handle:
        assert handle.read().count(b"\n") == 10_000
    os.unlink(buf.full_output_path)
