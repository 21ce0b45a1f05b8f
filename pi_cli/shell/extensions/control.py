"""What a handler may do to the shell beyond UI and state: the TypeScript pi's ``pi.exec``,
``setModel``, ``setThinkingLevel``, ``getActiveTools``/``setActiveTools``, ``getAllTools``,
``getCommands``, ``setSessionName``, ``sendUserMessage``, ``ctx.isIdle``, ``ctx.waitForIdle``,
``ctx.getSystemPrompt``, ``ctx.compact``, in Python's spelling.

:class:`ShellControls` is shared by ``pi`` (once the extension is loaded) and ``ctx``: each
call goes over to pi's loop through the extension's :class:`~.context.HostBridge`.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

if TYPE_CHECKING:  # the protocols are for type checkers (start-up pays for no class)
    from collections.abc import Awaitable, Callable
    from typing import Protocol, TypeVar

    from agent_core import Agent, Tool
    from pi_cli.shell.commands import SlashCommandRegistry
    from pi_cli.shell.input_queue import QueuedInput
    from pi_cli.shell.session.store import SessionStore

    T = TypeVar("T")

    class Bridge(Protocol):
        """Carries calls to pi's loop (:class:`~.context.HostBridge`)."""

        @property
        def host(self) -> object: ...
        def call(self, function: Callable[..., T], *args: Any) -> T: ...
        async def ask(self, make: Callable[[], Awaitable[T]]) -> T: ...

    class ControlHost(Protocol):
        """The shell as :class:`ShellControls` reaches it (the CodingAgent satisfies it)."""

        @property
        def cwd(self) -> Path: ...
        @property
        def agent(self) -> Agent: ...
        @property
        def tools(self) -> list[Tool]: ...
        @property
        def commands(self) -> SlashCommandRegistry: ...
        @property
        def session(self) -> SessionStore: ...
        @property
        def state(self) -> str: ...
        def queued(self) -> list[QueuedInput]: ...
        async def wait_idle(self) -> None: ...
        def set_model(self, spec: str, *, record: bool = True) -> None: ...
        def set_thinking(self, level: str) -> None: ...
        async def compact(self, instructions: str | None = None) -> Any: ...
        def submit(self, text: str, intent: Any = "auto") -> Any: ...


MAX_EXEC_OUTPUT = 10 * 1024 * 1024
"""What :meth:`ShellControls.exec` keeps of each stream (the rest is read and dropped)."""


@dataclass(frozen=True)
class ToolInfo:
    """A tool of the shell: pi's, an MCP server's or an extension's."""

    name: str
    description: str
    active: bool
    """Offered to the model now (see :meth:`ShellControls.set_active_tools`)."""


@dataclass(frozen=True)
class CommandInfo:
    """A slash command: ``source`` is ``builtin``, ``template``, ``skill``, ``extension:<name>``..."""

    name: str
    description: str
    source: str


@dataclass(frozen=True)
class ExecResult:
    """What :meth:`ShellControls.exec` saw: ``code`` is ``None`` when the process was killed."""

    stdout: str
    stderr: str
    code: int | None
    killed: bool


class ShellControls:
    """The shell's controls for an extension (mixed into ``pi`` and ``ctx``)."""

    def _bridge(self) -> Bridge:
        raise NotImplementedError

    def _host(self) -> ControlHost:
        return cast("ControlHost", self._bridge().host)

    def _call(self, function: Any, *args: Any) -> Any:
        return self._bridge().call(function, *args)

    # ------------------------------------------------------------------ the run

    def is_idle(self) -> bool:
        """No run, command or compaction is going on."""
        return bool(self._call(lambda: self._host().state == "idle"))

    def has_pending_messages(self) -> bool:
        """Steers or follow-ups are queued."""
        return bool(self._call(lambda: bool(self._host().queued())))

    async def wait_for_idle(self) -> None:
        """Wait until the shell is idle (do not await it in a handler of the run itself)."""
        await self._bridge().ask(lambda: self._host().wait_idle())

    def send_user_message(
        self, text: str, deliver_as: Literal["auto", "steer", "follow_up"] = "auto"
    ) -> None:
        """Send ``text`` as the user would (pi-ts ``sendUserMessage``; while a run is live: a
        steer or a follow-up)."""
        self._call(self._host().submit, str(text), deliver_as)

    @property
    def system_prompt(self) -> str:
        """The system prompt the next request sends."""
        return str(self._call(lambda: self._host().agent.system_prompt))

    async def compact(self, instructions: str | None = None) -> None:
        """Compact the conversation now (as ``/compact``)."""
        await self._bridge().ask(lambda: self._host().compact(instructions))

    # ------------------------------------------------------------------ model

    def set_model(self, spec: str) -> bool:
        """Switch to ``provider/id`` (as ``/model``); ``False`` (and a notice) when it cannot
        be used (unknown, no key)."""

        def switch() -> bool:
            from pi_cli.shell.models.setup import ConfigError

            try:
                self._host().set_model(str(spec))
            except ConfigError:
                return False
            return True

        return bool(self._call(switch))

    def set_thinking_level(self, level: str) -> None:
        """Set the thinking level (``off``, ``minimal``, ``low``, ``medium``, ``high``...)."""
        self._call(self._host().set_thinking, str(level))

    # ------------------------------------------------------------------ tools and commands

    def all_tools(self) -> list[ToolInfo]:
        """Every tool of the shell, active or not."""

        def read() -> list[ToolInfo]:
            host = self._host()
            active = {t.name for t in host.agent.tools}
            return [ToolInfo(t.name, t.description, t.name in active) for t in host.tools]

        return cast("list[ToolInfo]", self._call(read))

    def active_tools(self) -> list[str]:
        """The names of the tools offered to the model."""
        return cast("list[str]", self._call(lambda: [t.name for t in self._host().agent.tools]))

    def set_active_tools(self, names: Sequence[str]) -> None:
        """Offer the model only these tools (from the next request on); the others cannot be
        called, whatever the model says. Unknown names raise ``ValueError``."""
        wanted = [str(n) for n in names]

        def apply() -> None:
            host = self._host()
            unknown = sorted(set(wanted) - {t.name for t in host.tools})
            if unknown:
                raise ValueError(f"unknown tools: {', '.join(unknown)}")
            host.agent.tools[:] = [t for t in host.tools if t.name in wanted]

        self._call(apply)

    def commands(self) -> list[CommandInfo]:
        """The slash commands (built-in, templates, skills, extensions', plugins')."""
        return cast(
            "list[CommandInfo]",
            self._call(
                lambda: [
                    CommandInfo(c.name, c.description, c.source)
                    for c in self._host().commands.visible()
                ]
            ),
        )

    # ------------------------------------------------------------------ session

    @property
    def session_name(self) -> str | None:
        """The session's name (``/name``), if it has one."""
        from pi_cli.shell.session.names import session_name

        return cast("str | None", self._call(lambda: session_name(self._host().session)))

    def set_session_name(self, name: str) -> None:
        """Name the session (an empty name clears it)."""
        from pi_cli.shell.session.names import set_session_name

        self._call(lambda: set_session_name(self._host().session, str(name)))

    # ------------------------------------------------------------------ processes

    async def exec(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        cwd: str | Path | None = None,
        timeout: float | None = None,
        input: str | None = None,
    ) -> ExecResult:
        """Run ``command`` with ``args`` (no shell) in the working directory (or ``cwd``), as
        pi-ts's ``pi.exec``; ``timeout`` (seconds) kills it and its children. An extension is
        trusted code: this asks nobody (a tool that runs commands for the model should let
        the model use ``bash``, which is checked and sandboxed)."""
        where = Path(cwd) if cwd is not None else self._call(lambda: self._host().cwd)
        process = await asyncio.create_subprocess_exec(
            str(command), *map(str, args), cwd=where, start_new_session=True,
            stdin=asyncio.subprocess.PIPE if input is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        killed = False
        talk = asyncio.ensure_future(_talk(process, input))
        try:
            out, err = await asyncio.wait_for(asyncio.shield(talk), timeout)
        except TimeoutError:
            killed = True
            _kill_group(process.pid)
            try:
                out, err = await asyncio.wait_for(talk, 5)
            except TimeoutError:  # a descendant that left the group holds the pipes
                out, err = b"", b""
        except asyncio.CancelledError:  # the handler was stopped (Esc, its time limit)
            _kill_group(process.pid)
            talk.cancel()
            raise
        code = await process.wait()
        return ExecResult(_decode(out), _decode(err), None if killed else code, killed)


async def _talk(process: asyncio.subprocess.Process, input: str | None) -> tuple[bytes, bytes]:
    if process.stdin is not None:
        try:
            process.stdin.write((input or "").encode())
            await process.stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass
        process.stdin.close()
    assert process.stdout is not None and process.stderr is not None
    out, err = await asyncio.gather(_read(process.stdout), _read(process.stderr))
    return out, err


async def _read(stream: asyncio.StreamReader) -> bytes:
    kept = bytearray()
    while chunk := await stream.read(65536):
        if len(kept) < MAX_EXEC_OUTPUT:
            kept += chunk[: MAX_EXEC_OUTPUT - len(kept)]
    return bytes(kept)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")
