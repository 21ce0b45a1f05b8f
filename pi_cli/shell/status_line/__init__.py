"""The status line command: Claude Code's ``statusLine`` setting, run for a front end.

``{"statusLine": {"type": "command", "command": "~/.pi/statusline.sh", "padding": 0}}`` runs
the command with ``sh -c`` in the project folder, the session as JSON on its stdin (Claude
Code's fields: :meth:`StatusLine.payload`), and hands the first line of its stdout to the
front end, which shows it (the TUI under the editor, in its footer; the plain REPL in its
bottom toolbar).

- **When.** After the state changes (a message ends, the model, session, permission mode or
  shell state changes, a compaction ends), at most once per :data:`MIN_INTERVAL_S` (300 ms, as
  Claude Code): a change during a run or within the interval runs it once more afterwards.
- **Bounded.** A run still going after ``timeoutMs`` (default 2 s) is killed with its process
  group (it runs in a session of its own), and the line is left as it was; at most 64 KiB of
  output are read. A failing command (exit code not 0) blanks the line, as Claude Code does.
- **Sanitised.** Everything but SGR sequences (colours, bold...) and printable text is
  removed (:func:`sgr_only`); the front end keeps the colours where it can draw them and
  strips them otherwise.
- **Trust.** A project's ``statusLine`` is a command: an untrusted folder's is skipped (it is
  not on the untrusted allowlist) and named in the trust notice.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pi_cli.shell.text.terminal import clean

if TYPE_CHECKING:
    from pi_cli.shell.config.sections import StatusLineSettings
    from pi_cli.shell.events import Listener
    from pi_cli.shell.models.usage import SessionUsage

MIN_INTERVAL_S = 0.3
MAX_OUTPUT = 64 * 1024
_TRIGGERS = frozenset(
    {
        "message_end",
        "agent_end",
        "turn_end",
        "model_changed",
        "session_changed",
        "shell_state",
        "compaction_end",
        "permission_mode_changed",
    }
)
_SGR = re.compile(r"\x1b\[[0-9;:]*m")


def sgr_only(text: str) -> str:
    """``text`` with its SGR sequences kept and every other control sequence or character
    removed (:func:`pi_cli.shell.text.clean` between them)."""
    parts: list[str] = []
    last = 0
    for match in _SGR.finditer(text):
        parts.append(clean(text[last : match.start()]).replace("\n", " ").replace("\t", " "))
        parts.append(match.group())
        last = match.end()
    parts.append(clean(text[last:]).replace("\n", " ").replace("\t", " "))
    return "".join(parts)


def strip_sgr(text: str) -> str:
    """The plain text of a :func:`sgr_only` line."""
    return _SGR.sub("", text)


class _Session(Protocol):
    @property
    def session_id(self) -> str: ...
    @property
    def path(self) -> Path | None: ...


class StatusHost(Protocol):
    """What the status line reads of a shell."""

    @property
    def cwd(self) -> Path: ...
    @property
    def model_id(self) -> str: ...
    @property
    def session(self) -> _Session: ...
    @property
    def usage(self) -> SessionUsage: ...
    def context_usage(self) -> tuple[int, int]: ...
    def subscribe(self, listener: Listener) -> Callable[[], None]: ...


class StatusLine:
    """Runs the command for one front end; ``on_line`` gets each new first line (SGR kept)."""

    def __init__(
        self,
        shell: StatusHost,
        config: StatusLineSettings,
        on_line: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.shell = shell
        self.config = config
        self.on_line = on_line
        self.clock = clock
        self.text = ""
        self.started = clock()
        self.runs = 0
        self._last_start = -1e9
        self._task: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._dirty = False
        self._process: asyncio.subprocess.Process | None = None
        self._unsubscribe: Callable[[], None] | None = None

    def start(self) -> None:
        """Listen to the shell and run once now (call on the event loop)."""
        self._unsubscribe = self.shell.subscribe(self._on_event)
        self.poke()

    def _on_event(self, event: object) -> None:
        if getattr(event, "type", None) in _TRIGGERS:
            self.poke()

    def poke(self) -> None:
        """The state changed: run now, or once the interval or the running command is over."""
        if self._task is not None and not self._task.done():
            self._dirty = True
            return
        if self._timer is not None:
            return
        wait = self._last_start + MIN_INTERVAL_S - self.clock()
        loop = asyncio.get_running_loop()
        if wait > 0:
            self._timer = loop.call_later(wait, self._fire)
        else:
            self._fire()

    def _fire(self) -> None:
        self._timer = None
        self._last_start = self.clock()
        self._dirty = False
        self._task = asyncio.get_running_loop().create_task(self._run())
        self._task.add_done_callback(self._ran)

    def _ran(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and self._dirty:
            self.poke()

    async def _run(self) -> None:
        self.runs += 1
        payload = json.dumps(self.payload()).encode()
        try:
            process = self._process = await asyncio.create_subprocess_exec(
                "/bin/sh", "-c", self.config.command,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL, cwd=self.shell.cwd, start_new_session=True,
            )  # fmt: skip
        except OSError:
            self._show("")
            return
        try:
            out = await asyncio.wait_for(
                self._talk(process, payload), self.config.timeout_ms / 1000
            )
        except TimeoutError:
            self._kill(process)  # slow: the line stays as it was
            await process.wait()
            return
        finally:
            self._process = None
        cut = len(out) >= MAX_OUTPUT
        self._show(first_line(out) if process.returncode == 0 or cut else "")

    async def _talk(self, process: asyncio.subprocess.Process, payload: bytes) -> bytes:
        assert process.stdin is not None and process.stdout is not None
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            process.stdin.write(payload)
            await process.stdin.drain()
        with contextlib.suppress(OSError):
            process.stdin.close()
        out = b""
        while len(out) < MAX_OUTPUT and (chunk := await process.stdout.read(MAX_OUTPUT)):
            out += chunk
        if len(out) >= MAX_OUTPUT:  # a command printing for ever is cut here: its line shows
            self._kill(process, only_if_running=True)
            await process.wait()
            return out if b"\n" in out else b""
        await process.wait()
        return out

    @staticmethod
    def _kill(process: asyncio.subprocess.Process, only_if_running: bool = False) -> None:
        if only_if_running and process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)  # the command's children too

    def _show(self, line: str) -> None:
        text = (" " * self.config.padding + line) if line else ""
        if text != self.text:
            self.text = text
            self.on_line(text)

    def payload(self) -> dict[str, Any]:
        """What the command reads on stdin: Claude Code's status line fields."""
        from pi_cli import __version__

        shell = self.shell
        usage = shell.usage
        tokens, window = shell.context_usage()
        used = round(100 * tokens / window, 1) if window else 0.0
        cwd = str(shell.cwd)
        path = shell.session.path
        return {
            "hook_event_name": "Status",
            "session_id": shell.session.session_id,
            "transcript_path": str(path) if path else "",
            "cwd": cwd,
            "model": {"id": shell.model_id, "display_name": shell.model_id.rpartition("/")[2]},
            "workspace": {"current_dir": cwd, "project_dir": cwd},
            "version": __version__,
            "output_style": {"name": "default"},
            "cost": {
                "total_cost_usd": round(usage.cost, 6),
                "total_duration_ms": int((self.clock() - self.started) * 1000),
                "total_api_duration_ms": 0,
                "total_lines_added": 0,
                "total_lines_removed": 0,
            },
            "context_window": {
                "total_input_tokens": usage.input + usage.cache_read + usage.cache_write,
                "total_output_tokens": usage.output,
                "context_window_size": window,
                "used_percentage": used,
                "remaining_percentage": round(100 - used, 1),
            },
            "exceeds_200k_tokens": tokens > 200_000,
        }

    async def aclose(self) -> None:
        """Stop listening; a running command is killed with its group."""
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self._timer is not None:
            self._timer.cancel()
        if self._process is not None:
            self._kill(self._process, only_if_running=True)
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task


def first_line(output: bytes) -> str:
    """The first line of ``output``, sanitised (SGR kept), cut at 2000 characters."""
    line = output.decode("utf-8", "replace").split("\n", 1)[0].rstrip("\r")
    return sgr_only(line)[:2000]
