"""``pi --plain``: a line-mode interactive REPL that keeps the terminal's own scrollback.

prompt-toolkit owns only the input line (and a toolbar under it); everything else is printed by
rich into normal scrollback above it (:mod:`.plain.terminal`). The input stays live while the
agent runs: Enter steers, Alt+Enter / Tab queue a follow-up, Esc / Ctrl+C abort (see
:mod:`.plain.keys`).
"""

from __future__ import annotations

import asyncio
import base64
import errno
import signal
import sys
from collections.abc import Awaitable, Callable
from contextlib import nullcontext, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output
from rich.console import Console
from rich.text import Text

from pi_cli.args import ExitCode, LaunchArgs
from pi_cli.modes.common import build_shell
from pi_cli.modes.plain.agent_render import background_work, long_running_text
from pi_cli.modes.plain.approval import answer_waiting, ask_trust, ask_unknown_command
from pi_cli.modes.plain.editing import open_in_editor
from pi_cli.modes.plain.history import print_history
from pi_cli.modes.plain.keys import PiCompleter, register_extra_sequences, repl_key_bindings
from pi_cli.modes.plain.pickers import Pickers
from pi_cli.modes.plain.render import PlainRenderer
from pi_cli.modes.plain.terminal import (
    LiveWidthConsole,
    ReplSession,
    TerminalWriter,
    is_dumb,
    writing_above_prompt,
)
from pi_cli.modes.plain.tool_render import clip
from pi_cli.modes.termination import Termination
from pi_cli.shell import (
    CommandResult,
    DialogRequested,
    DialogResolved,
    PermissionRequested,
    PermissionResolved,
    QueueReturned,
    ShellEvent,
    ShellStateChanged,
    pi_home,
    quit_report,
)

if TYPE_CHECKING:
    from pi_cli.shell import FrontShell

Kind = Literal["enter", "follow_up"]
HINT = (
    "Enter sends · while a run is live Enter steers, Alt+Enter or Tab queues a follow-up, "
    "Esc aborts · Ctrl+J newline · /help · Ctrl+D quits"
)


def run_plain(args: LaunchArgs) -> int:
    """Entry point used by the launcher for ``--plain``, ``TERM=dumb`` and ``ui: "plain"``."""
    args.shell.approvals = "interactive"
    if args.shell.trust is None:
        from pi_cli.shell import check_trust, record_trust

        check = check_trust(args.cwd)
        if check.needs_question:
            trusted = asyncio.run(ask_trust(check))
            record_trust(check.root, trusted, check.digest)
    shell = build_shell(args)
    if isinstance(shell, int):
        return shell
    try:
        return asyncio.run(_run(shell, args))
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED


async def _run(shell: FrontShell, args: LaunchArgs) -> int:
    repl = PlainRepl(shell, background=args.background)  # subscribed on the loop: /loop fires
    if args.resume:  # pi -r: the numbered session list first (/resume N picks one)
        await repl.handle("/resume")
    return await repl.run()


def history_path() -> Path:
    """``$PI_HOME/history`` (created on demand)."""
    path = pi_home() / "history"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


class _AnswerApprovals(Exception):  # control flow
    """Raised into the input prompt so the REPL can ask a pending approval."""


class PlainRepl:
    """The REPL around one shell (a local CodingAgent, or one living in ``pi serve``).

    Args:
        shell: the shell (any :class:`~pi_cli.shell.FrontShell`).
        console: rich console for output (default: stdout, written above the input line).
        input / output: prompt-toolkit I/O (tests pass a pipe input and ``DummyOutput``).
        history_file: input history (default ``$PI_HOME/history``).
    """

    def __init__(
        self,
        shell: FrontShell,
        *,
        console: Console | None = None,
        input: Input | None = None,
        output: Output | None = None,
        history_file: Path | None = None,
        background: Callable[[str], Awaitable[str]] | None = None,
    ) -> None:
        register_extra_sequences()
        self.shell = shell
        self.background = background  # "& prompt": start it in pi serve (the launcher's)
        self.console = console or LiveWidthConsole(highlight=False)
        self.renderer = PlainRenderer(self.console, shell, on_change=self.invalidate)
        self.pickers = Pickers(shell)
        self.next_kind: Kind = "enter"
        self._tasks: set[asyncio.Task[None]] = set()
        self._app: Application[Any] | None = None
        self._quit = False
        self._closed = False
        self._restore = ""
        self.io = (input, output)
        self.questions: list[PermissionRequested | DialogRequested] = []
        self._writer: TerminalWriter | None = None
        self.asking: str | None = None  # the dialog whose prompt is up (tests wait for it)
        shell.subscribe(self.renderer)
        shell.subscribe(self._on_event)
        self.session = ReplSession(
            message=self._message,
            history=FileHistory(str(history_file or history_path())),
            completer=PiCompleter(shell),
            complete_while_typing=False,
            key_bindings=repl_key_bindings(self, shell),
            bottom_toolbar=self._toolbar,
            reserve_space_for_menu=4,
            input=input,
            output=output,
        )
        # Esc alone must abort promptly, yet ESC CR (Alt+Enter) must still be one chord. A
        # terminal writes both bytes at once, but a loaded machine (or tmux) can deliver them in
        # two reads: 0.05 s split Alt+Enter into Esc + Enter under load; 0.15 s is still prompt.
        self.session.app.ttimeoutlen = 0.15
        self.session.app.timeoutlen = 0.25
        self.session.on_dumb_start = self._capture_app
        self.renderer.ui.attach_input(shell, self.session, lambda t: setattr(self, "_restore", t))
        self._dumb = output is None and is_dumb()

    # ------------------------------------------------------------------ state

    @property
    def running(self) -> bool:
        """True while the shell handles an input (a prompt, a command, compaction)."""
        return self.shell.busy

    def invalidate(self) -> None:
        """Redraw the prompt area (queue, toolbar) if the prompt is up."""
        if self._app is not None and self._app.is_running:
            self._app.invalidate()

    def _message(self) -> FormattedText:
        if self._dumb and self.running:
            # Printed once, never erased: output would follow it on the same line. A fresh
            # "› " is printed when the run ends (see _on_event).
            return FormattedText([])
        parts: list[tuple[str, str]] = [
            ("fg:ansicyan", f"{line}\n") for line in self.renderer.ui.panel_lines()
        ]
        for item in self.shell.queued():
            label = "steer" if item.kind == "steer" else "follow-up"
            text = clip(" ".join(item.text.split()), 100)
            parts.append(("fg:ansiyellow", f"  queued {label}: {text}\n"))
        parts.append(("bold", "steer › " if self.running else "› "))
        return FormattedText(parts)

    def _toolbar(self) -> str:
        goal = long_running_text(self.shell)  # the goal and the loops
        if self.running:
            return (
                f" ● running · turn {self.renderer.turn}{goal} · Enter steer · Alt+Enter/Tab"
                " follow-up · Esc abort"
            )
        context = f" · {self.renderer.context_text}" if self.renderer.context_text else ""
        mode = self.shell.permissions.mode
        extra = "".join(f" · {part}" for part in self.renderer.ui.toolbar_parts())
        shells = background_work(self.shell)
        servers = self.shell.lsp.started
        lsp = f" · {servers.footer()}" if servers is not None and servers.servers else ""
        return (
            f" {self.shell.model_id}{context}{shells}{lsp}{goal} · {mode}{extra} · Ctrl+J newline · Tab complete"
            " · Ctrl+D quit"
        )

    # ------------------------------------------------------------------ main loop

    async def run(self) -> int:
        """Read input until Ctrl+D or /quit; returns the exit code."""
        self.console.print(Text(f"pi · {self.shell.model_id} · {self.shell.cwd}", style="bold"))
        self.console.print(Text(HINT, style="dim"))
        print_history(self.console, self.shell.messages, self.shell.describe_call)
        self.renderer.agents.show_todos(self.shell.agent_tools.todos.items)  # a resumed list
        # SIGTERM/SIGHUP: like Esc then Ctrl+D (abort, leave the prompt, shut down); a run in
        # the server goes on (only this client leaves).
        termination = Termination(self._abort_own_run, self.request_quit).install()
        try:
            # Raw between prompts too: keys typed while one input is handed over (Alt+Enter
            # right after Enter) wait in the terminal unechoed, ESC+CR still one key, instead
            # of cooked mode echoing "^[" and turning CR into Ctrl+J.
            # A dumb terminal cannot erase the input line to print above it: output goes at once.
            printing = nullcontext() if self._dumb else writing_above_prompt(self.session.output)
            with self.session.input.raw_mode(), printing as writer:
                self._writer = writer
                await self._loop()
                await self.drained()
        except OSError as exc:  # EIO: the terminal went away; its SIGHUP may not be handled yet
            if termination.code is None and exc.errno != errno.EIO:
                raise
            termination.handle(signal.SIGHUP)
        await self._shutdown()
        return termination.exit_code(ExitCode.OK)

    async def _loop(self) -> None:
        """Prompt and handle inputs (and approvals) until quit."""
        while not self._quit:
            await answer_waiting(self)
            default, self._restore = self._restore, ""
            self.session.app.erase_when_done = False  # an accepted line stays in the scrollback
            try:
                text = await self.session.prompt_async(default=default, pre_run=self._capture_app)
            except _AnswerApprovals:
                continue  # what was typed is kept in self._restore
            except EOFError:
                break
            except KeyboardInterrupt:
                # Only reached on dumb terminals, where the prompt's own Ctrl+C binding wins.
                if self.running:
                    self.abort(None)
                continue
            finally:
                self._app = None
            kind, self.next_kind = self.next_kind, "enter"
            await self.handle(text, kind)

    def _capture_app(self, app: Application[Any] | None = None) -> None:
        self._app = app or get_app()
        if self._quit:  # a /quit finished between two prompts
            self._app.exit(exception=EOFError())
        elif self.questions:
            self._interrupt_for_approval()

    def _interrupt_for_approval(self) -> None:
        """Leave the input line (what was typed is kept): an approval is asked, or a dumb
        terminal needs a fresh prompt printed."""
        app = self._app
        if app is not None and app.is_running:
            self._restore = "\n".join(
                filter(None, [self._restore, self.session.default_buffer.text])
            )
            app.erase_when_done = True  # no stray "steer ›" line left in the scrollback
            app.exit(exception=_AnswerApprovals())

    async def drained(self) -> None:
        """Wait until what was printed is on the terminal (before a question is asked)."""
        if self._writer is not None:
            await self._writer.drain()

    async def handle(self, text: str, kind: Kind = "enter") -> None:
        """Act on one accepted input line (public for tests): the shell decides what it becomes."""
        if not text.strip():
            return
        text = self.pickers.expand(text)
        if self.background is not None and text.startswith("&"):  # "& prompt": in pi serve
            message = await self.background(text[1:].strip())
            self.console.print(Text(message, style="cyan"))
            return
        unknown = self.shell.commands.unknown(text)
        if unknown is not None:  # /tpyo: ask, rather than send a typo to the model
            await self.drained()
            answer = await ask_unknown_command(unknown, *self.io)
            if answer is None:
                self._restore = "\n".join(filter(None, [self._restore, text]))
                return
            text = text if answer == "send" else answer
        user_command = self.shell.user_bash.start(text)  # !cmd / !!cmd: the user's own command
        future = user_command or self.shell.submit(
            text, "follow_up" if kind == "follow_up" else "auto"
        )
        if future.done():  # queued, or refused while busy: nothing to wait for
            await self._finished(future)
            return
        task = asyncio.create_task(self._finished(future))
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self.invalidate()

    async def _finished(self, future: asyncio.Future[CommandResult | None]) -> None:
        try:
            result = await future
        except Exception as exc:  # noqa: BLE001 - provider setup errors must not kill the REPL
            self.console.print(Text(f"error: {exc}", style="bold red"))
            return
        if result is not None:
            if result.quit and self.running and not self.shell.remote:
                self.abort(None)
            await self._show_result(result)

    def _on_event(self, event: ShellEvent) -> None:
        """Approvals interrupt the input line; a handed-back queue goes into it."""
        if isinstance(event, PermissionRequested | DialogRequested):
            self.questions.append(event)
            self._interrupt_for_approval()
        elif isinstance(event, ShellStateChanged) and event.state == "idle" and self._dumb:
            self._interrupt_for_approval()  # the "› " of the next input
        elif isinstance(event, PermissionResolved | DialogResolved):
            self.questions = [r for r in self.questions if r.id != event.id]
        if isinstance(event, QueueReturned) and event.items:
            restored = "\n".join(item.text for item in event.items)
            app = self._app
            if app is not None and app.is_running:
                buffer = self.session.default_buffer
                buffer.text = (buffer.text + "\n" + restored) if buffer.text else restored
                buffer.cursor_position = len(buffer.text)
            else:
                self._restore = "\n".join(filter(None, [self._restore, restored]))

    async def _show_result(self, result: CommandResult) -> None:
        if result.clipboard is not None and sys.stdout.isatty():
            # OSC 52: the terminal (and tmux with set-clipboard on) puts it on the clipboard.
            data = base64.b64encode(result.clipboard.encode()).decode()
            sys.stdout.write(f"\x1b]52;c;{data}\x07")
            sys.stdout.flush()
        if result.output:
            self.console.print(Text(result.output, style="red" if result.error else ""))
        if result.edit is not None and (problem := await open_in_editor(result.edit)):
            self.console.print(Text(problem, style="red"))  # /memory: the file in $EDITOR
        if result.action:
            for line in await self.pickers.show(result.action):
                self.console.print(Text(line))
        if result.quit:
            self.request_quit()

    def request_quit(self) -> None:
        """Leave the REPL after the current input (also from a background task)."""
        self._quit = True
        if self._app is not None and self._app.is_running:
            self._app.exit(exception=EOFError())

    def abort(self, buffer: Buffer | None) -> None:
        """Abort the live run; queued messages come back into the input line, not lost."""
        if not self.running:
            return
        self.shell.abort()
        self.console.print(Text("aborting…", style="yellow"))

    def _abort_own_run(self) -> None:
        if not self.shell.remote:
            self.shell.abort()

    async def _shutdown(self) -> None:
        if self._closed:
            return
        self._closed = True
        await self.renderer.ui.close()  # the statusLine command's group is killed
        note = quit_report(self.shell)  # said once everything has stopped
        if self.running and not self.shell.remote:
            self.shell.take_queued()
            self.shell.abort()
            try:
                await asyncio.wait_for(self.shell.wait_idle(), timeout=5)
            except (TimeoutError, asyncio.CancelledError):
                for task in list(self._tasks):
                    task.cancel()
        await self.shell.aclose()
        if note is not None:
            with suppress(OSError):  # the terminal may be gone (SIGHUP: the exit code is 129)
                self.console.print(Text(note, style="yellow"))
