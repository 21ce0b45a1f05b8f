"""Output reaches the terminal whole (the plain REPL's writer, and ``say``, which prints a
one-shot's answer): a long answer is written with write(2) calls that a signal can cut short,
or that a non-blocking descriptor refuses for a while."""

from __future__ import annotations

import asyncio
import io
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output.vt100 import Vt100_Output

from pi_cli.modes.plain.terminal import TerminalWriter
from pi_cli.shell import write_all

ANSWER = "".join(f"line {i}: " + "word " * 30 + "\n" for i in range(12_000))  # ~2 MB


def _slow_reader(fd: int, into: bytearray) -> threading.Thread:
    def read() -> None:
        while chunk := os.read(fd, 4096):
            into.extend(chunk)
            time.sleep(0.0002)  # a terminal slower than pi: the pipe fills, writes wait
        os.close(fd)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


@contextmanager
def unbuffered_pipe_under_signals() -> Iterator[tuple[io.TextIOWrapper, bytearray]]:
    """A text stream as stdout is under PYTHONUNBUFFERED (one write(2) per write) on a pipe a
    slow reader drains, with a signal every millisecond cutting write(2) calls short (as a
    child's SIGCHLD does); yields the stream and what the reader has received (all of it once
    the block ends)."""
    read_fd, write_fd = os.pipe()
    received = bytearray()
    reader = _slow_reader(read_fd, received)
    stream = io.TextIOWrapper(io.FileIO(write_fd, "w"), encoding="utf-8", write_through=True)
    previous = signal.signal(signal.SIGALRM, lambda *_: None)
    signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
    try:
        yield stream, received
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        stream.close()
        reader.join(30)


def test_an_answer_reaches_the_terminal_whole_while_signals_cut_its_writes() -> None:
    """As under PYTHONUNBUFFERED (stdout's binary layer unbuffered: one write(2) per write)
    with children exiting meanwhile (SIGCHLD): a write(2) cut short by a signal returns what it
    wrote, and the rest must still be written (it was lost: the answer's tail never shown)."""
    with unbuffered_pipe_under_signals() as (stdout, received):
        output = Vt100_Output(stdout, lambda: Size(rows=40, columns=120))

        async def run() -> None:
            writer = TerminalWriter(output, asyncio.get_running_loop())
            writer.write(ANSWER)
            await writer.drain()

        asyncio.run(run())
    assert bytes(received) == ANSWER.encode()


def test_write_all_waits_on_a_descriptor_left_non_blocking() -> None:
    """Another process may set O_NONBLOCK on the terminal (flags are shared): a full pipe then
    refuses with EAGAIN, and the write waits until it can go on."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    received = bytearray()
    reader = _slow_reader(read_fd, received)
    data = ANSWER.encode()
    write_all(write_fd, data)
    os.close(write_fd)
    reader.join(30)
    assert bytes(received) == data


def test_say_prints_a_long_answer_whole_while_signals_cut_its_writes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``pi -p``'s answer through ``say`` on an unbuffered stdout (PYTHONUNBUFFERED)."""
    from pi_cli.shell import say

    with unbuffered_pipe_under_signals() as (stdout, received):
        monkeypatch.setattr("sys.stdout", stdout)
        say(ANSWER.rstrip("\n"))
    assert bytes(received) == ANSWER.encode()
