"""JSON lines reach a reader whole even when stdout is non-blocking (a flag any process sharing
the descriptor may set) and the pipe is full: the writer waits instead of cutting a line."""

from __future__ import annotations

import fcntl
import io
import json
import os
import threading
import time

from pi_cli.modes.json_writer import JsonEventWriter


def test_a_full_non_blocking_pipe_gets_every_line_whole() -> None:
    read_fd, write_fd = os.pipe()
    flags = fcntl.fcntl(write_fd, fcntl.F_GETFL)
    fcntl.fcntl(write_fd, fcntl.F_SETFL, flags | os.O_NONBLOCK)
    received = bytearray()

    def slow_reader() -> None:
        time.sleep(0.2)  # the pipe (64 KiB) fills first
        while chunk := os.read(read_fd, 4096):
            received.extend(chunk)
            time.sleep(0.001)

    reader = threading.Thread(target=slow_reader)
    reader.start()
    stream = io.TextIOWrapper(io.FileIO(write_fd, "w", closefd=True), encoding="utf-8")
    writer = JsonEventWriter(stream)
    payloads = [{"type": "chunk", "n": n, "text": "x" * 50_000} for n in range(12)]
    for payload in payloads:
        writer.write_data(payload)
    assert not writer.broken
    stream.close()
    reader.join(timeout=30)
    os.close(read_fd)
    lines = received.decode().splitlines()
    assert [json.loads(line)["n"] for line in lines] == list(range(12))
