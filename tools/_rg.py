"""Locating and running ripgrep (``rg``), shared by grep and find.

The ``ripgrep`` PyPI package installs ``rg`` into the interpreter's scripts directory. When pi
runs without its venv activated (pipx), that directory is not on PATH, so look there first.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agent_core import ToolError

_RG: str | None = None
_EXE = "rg.exe" if os.name == "nt" else "rg"


def find_rg() -> str:
    """Path of the ``rg`` binary: next to the interpreter first, then PATH.

    Raises:
        ToolError: when no ripgrep binary can be found.
    """
    global _RG
    if _RG is not None:
        return _RG
    candidates = [sysconfig.get_path("scripts"), str(Path(sys.executable).parent)]
    for folder in candidates:
        if folder:
            path = Path(folder) / _EXE
            if path.is_file() and os.access(path, os.X_OK):
                _RG = str(path)
                return _RG
    found = shutil.which("rg")
    if found is None:
        raise ToolError(
            "ripgrep (rg) is not installed: install the 'ripgrep' Python package "
            "(pip install ripgrep==14.1.0) or put rg on PATH."
        )
    _RG = found
    return _RG


@dataclass
class RgOutput:
    """Lines rg printed (without newlines), whether we stopped early, and its exit status."""

    lines: list[bytes] = field(default_factory=list)
    stopped_early: bool = False
    returncode: int = 0
    stderr: str = ""


async def run_rg(
    args: list[str],
    cwd: Path,
    max_records: int,
    is_record: Callable[[bytes], bool] = lambda _line: True,
) -> RgOutput:
    """Run ``rg args`` in ``cwd``, collecting stdout lines until ``max_records`` records.

    Once the limit is passed rg is killed (no need to walk the rest of the tree). Output is read
    in large chunks rather than line by line: it is measurably faster on big listings. On
    cancellation rg is killed before the ``CancelledError`` propagates.
    """
    proc = await asyncio.create_subprocess_exec(
        find_rg(),
        *args,
        cwd=str(cwd),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    stderr_task = asyncio.ensure_future(_drain(proc.stderr))
    out = RgOutput()
    records = 0
    pending = b""
    try:
        while True:
            chunk = await proc.stdout.read(256 * 1024)
            if not chunk:
                if pending:
                    out.lines.append(pending)
                break
            parts = (pending + chunk).split(b"\n")
            pending = parts.pop()
            for line in parts:
                if is_record(line):
                    records += 1
                    if records > max_records:
                        out.stopped_early = True
                        break
                out.lines.append(line)
            if out.stopped_early:
                break
    except BaseException:
        _kill(proc)
        stderr_task.cancel()
        await proc.wait()
        raise
    if out.stopped_early:
        _kill(proc)
    out.returncode = await proc.wait()
    out.stderr = (await stderr_task).decode("utf-8", "replace").strip()
    return out


async def _drain(stream: asyncio.StreamReader, keep: int = 16 * 1024) -> bytes:
    """Read a stream to EOF (so the writer never blocks) keeping only its first bytes."""
    kept = b""
    while chunk := await stream.read(64 * 1024):
        if len(kept) < keep:
            kept += chunk[: keep - len(kept)]
    return kept


def _kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass
