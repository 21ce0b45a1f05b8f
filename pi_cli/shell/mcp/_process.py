"""Starting an MCP server process inside pi's process containment (:mod:`tools.sandbox.processes`).

The server starts in its own session with a parent-death signal (SIGKILL when pi dies, even by
SIGKILL), with exactly the environment pi gives it (the tools' key-free environment plus its
configured ``env``); its stderr is kept (the last few KiB) for error messages. Whatever it
starts, even a ``setsid`` daemon, stays below pi (a child subreaper) and ends with it. No SDK
here: servers are spawned first, so they boot while the SDK is imported.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Mapping

from tools.sandbox import processes

STDERR_TAIL = 4096


class ServerProcessError(Exception):
    """The server broke the transport (exited, wrote something that is not JSON-RPC)."""


class StdioProcess:
    """A started server process and what it said on stderr."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.stderr = bytearray()
        self.protocol_error: str | None = None
        self.protocol_note: str | None = None  # the last line that was not JSON-RPC

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

    def tree(self) -> processes.Tree:
        """The server and everything it started, read now (before asking it to stop)."""
        return processes.Tree(self.process.pid)

    def kill_tree(self) -> None:
        """SIGKILL the server, its group and every process below it (never raises)."""
        self.tree().kill()


async def spawn(
    command: str, args: list[str], env: Mapping[str, str], cwd: str | None
) -> StdioProcess:
    """Start the server (raises OSError when the command cannot be run)."""
    process = await processes.start(
        [command, *args],
        name=f"MCP server {command}",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(env),
        cwd=cwd,
        limit=64 * 1024 * 1024,  # one stdout line (images come base64-encoded in one)
    )
    return StdioProcess(process)
