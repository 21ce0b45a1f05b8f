"""read/edit/write refuse FIFOs and devices instead of blocking forever in a worker thread."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_core import ToolError
from tests.tools._helpers import run
from tools import create_edit_tool, create_read_tool, create_write_tool

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX FIFOs")


def _release(fifo: Path) -> None:
    """Unblock a reader stuck in open() on ``fifo`` (so a failing test fails instead of hanging)."""
    with contextlib.suppress(OSError):
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)


async def _run_bounded(fifo: Path, tool: Any, **arguments: Any) -> Any:
    try:
        return await asyncio.wait_for(run(tool, **arguments), timeout=3)
    except TimeoutError:
        _release(fifo)
        pytest.fail("tool blocked on a FIFO")


@pytest.mark.parametrize(
    "make_tool, extra",
    [
        (create_read_tool, {}),
        (create_edit_tool, {"edits": [{"old_text": "a", "new_text": "b"}]}),
    ],
)
async def test_read_and_edit_refuse_fifo(
    tmp_path: Path, make_tool: Any, extra: dict[str, Any]
) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ToolError, match="not a regular file"):
        await _run_bounded(fifo, make_tool(tmp_path), path="pipe", **extra)


async def test_read_refuses_char_device(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="not a regular file"):
        await run(create_read_tool(tmp_path), path="/dev/null")


async def test_write_refuses_fifo_and_keeps_it(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(ToolError, match="not a regular file"):
        await _run_bounded(fifo, create_write_tool(tmp_path), path="pipe", content="x")
    assert fifo.is_fifo()
