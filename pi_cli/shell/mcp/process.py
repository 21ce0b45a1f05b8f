"""Starting an MCP server process inside pi's process containment (standard library only).

The server starts in its own process group with ``PR_SET_PDEATHSIG`` set in the child (it gets
SIGKILL when pi dies, even by SIGKILL), with exactly the environment pi gives it (the tools'
key-free environment plus its configured ``env``); its stderr is kept (the last few KiB) for
error messages. No SDK here: servers are spawned first, so they boot while the SDK is imported.
(The sandbox branch builds pi's general process containment in ``tools/processes.py``; this
module is the piece to unify with it.)
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
from collections.abc import Mapping
from typing import Any

PR_SET_PDEATHSIG = 1
STDERR_TAIL = 4096
try:
    _prctl: Any = ctypes.CDLL(None, use_errno=True).prctl  # loaded before fork: no dlopen after
except (OSError, AttributeError):  # not Linux
    _prctl = None


def _contain() -> None:  # runs in the child between fork and exec: no allocation-heavy work
    if _prctl is not None:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class ServerProcessError(Exception):
    """The server broke the transport (exited, wrote something that is not JSON-RPC)."""


class StdioProcess:
    """A started server process and what it said on stderr."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.stderr = bytearray()
        self.protocol_error: str | None = None

    @property
    def pid(self) -> int:
        """The server's pid (also its process group id)."""
        return self.process.pid

    def stderr_tail(self, limit: int = 600) -> str:
        """The end of what the server wrote to stderr, as one trimmed text."""
        text = self.stderr.decode("utf-8", "replace").strip()
        return text if len(text) <= limit else "…" + text[-limit:]

    def exit_text(self) -> str:
        """How the process ended (or ``running``)."""
        code = self.process.returncode
        if code is None:
            return "running"
        if code < 0:
            try:
                return f"killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"killed by signal {-code}"
        return f"exited with code {code}"

    def kill_group(self, sig: int = signal.SIGKILL) -> None:
        """Signal the server's whole process group (never raises)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)


async def spawn(
    command: str, args: list[str], env: Mapping[str, str], cwd: str | None
) -> StdioProcess:
    """Start the server (raises OSError when the command cannot be run)."""
    process = await asyncio.create_subprocess_exec(
        command,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(env),
        cwd=cwd,
        start_new_session=True,
        preexec_fn=_contain,
        limit=64 * 1024 * 1024,  # one stdout line (images come base64-encoded in one)
    )
    return StdioProcess(process)
