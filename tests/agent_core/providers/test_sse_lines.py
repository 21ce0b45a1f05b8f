"""SSE line framing: CR, LF and CRLF only (the SSE spec), whatever the chunking."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from agent_core.providers._wire.sse import MAX_LINE_BYTES, SseLineTooLong, iter_sse, iter_sse_lines

RAW = (
    'data: {"t": "a\u2028b\u2029c\u0085d \u00e9\U0001f600"}\r\n\r\n'
    "event: x\rdata: two\r\rdata: three\n\n: comment\ndata: four\r\n\r\n"
).encode()


async def _chunks(data: bytes, size: int) -> AsyncIterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


async def _lines(data: bytes, size: int) -> list[str]:
    return [line async for line in iter_sse_lines(_chunks(data, size))]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 64, 10_000])
async def test_lines_split_on_cr_lf_crlf_only(size: int) -> None:
    lines = await _lines(RAW, size)
    assert lines == [
        'data: {"t": "a\u2028b\u2029c\u0085d \u00e9\U0001f600"}',
        "",
        "event: x",
        "data: two",
        "",
        "data: three",
        "",
        ": comment",
        "data: four",
        "",
    ]


@pytest.mark.parametrize("size", [1, 5, 10_000])
async def test_events_survive_any_chunking(size: int) -> None:
    events = [(e.event, e.data) async for e in iter_sse(iter_sse_lines(_chunks(RAW, size)))]
    assert events == [
        ("message", '{"t": "a\u2028b\u2029c\u0085d \u00e9\U0001f600"}'),
        ("x", "two"),
        ("message", "three"),
        ("message", "four"),
    ]


async def _given(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


@pytest.mark.parametrize(
    "chunks",
    [
        [b"data: a\r", b"\n", b"\n", b"data: b\n\n"],  # CRLF split, then a lone LF chunk
        [b"data: a\r", b"\n", b"", b"\n", b"data: b\n\n"],  # an empty read between
        [b"data: a\r", b"", b"\n\n", b"data: b\n\n"],
        [b"data: a\r", b"\n\r", b"\ndata: b\r\n\r\n"],
    ],
)
async def test_a_crlf_split_across_chunks_keeps_the_next_blank_line(chunks: list[bytes]) -> None:
    events = [e.data async for e in iter_sse(iter_sse_lines(_given(chunks)))]
    assert events == ["a", "b"]


async def test_last_line_without_break_is_kept() -> None:
    assert await _lines(b"data: a\ndata: b", 3) == ["data: a", "data: b"]


async def test_a_line_without_end_is_refused_past_the_cap() -> None:
    async def endless() -> AsyncIterator[bytes]:
        block = b"x" * (1024 * 1024)
        for _ in range(MAX_LINE_BYTES // len(block) + 2):
            yield block

    with pytest.raises(SseLineTooLong):
        async for _ in iter_sse_lines(endless()):
            pass
