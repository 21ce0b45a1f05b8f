"""``pi --plain``: a line-mode interactive REPL that keeps the terminal's own scrollback.

prompt-toolkit owns only the input line (and a toolbar under it); everything else is printed by
rich into normal scrollback through ``patch_stdout``. The input stays live while the agent runs:
Enter steers, Alt+Enter / Tab queue a follow-up, Esc / Ctrl+C abort (see :mod:`.plain.keys`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

from prompt_toolkit import PromptSession
from prompt_toolkit.application import Application, get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output
from prompt_toolkit.patch_stdout import patch_stdout
from rich.console import Console
from rich.text import Text

from pi_cli.launch import EXIT_INTERRUPTED, EXIT_OK, LaunchArgs
from pi_cli.modes.common import build_shell
from pi_cli.modes.plain.keys import PiCompleter, build_key_bindings, register_extra_sequences
from pi_cli.modes.plain.pickers import Pickers
from pi_cli.modes.plain.render import PlainRenderer, clip
from pi_cli.shell.paths import pi_home
from pi_cli.shell.slash_commands import CommandResult, parse_command_line

Kind = Literal["enter", "follow_up"]
HINT = (
    "Enter sends · while a run is live Enter steers, Alt+Enter or Tab queues a follow-up, "
    "Esc aborts · Ctrl+J newline · /help · Ctrl+D quits"
)


def run_plain(args: LaunchArgs) -> int:
    """Entry point used by the launcher for ``--plain``, ``TERM=dumb`` and ``ui: "plain"``."""
    shell = build_shell(args)
    if isinstance(shell, int):
        return shell
    try:
        return asyncio.run(PlainRepl(shell).run())
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def history_path() -> Path:
    """``$PI_HOME/history`` (created on demand)."""
    path = pi_home() / "history"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


class PlainRepl:
    """The REPL around one CodingAgent.

    Args:
        shell: the CodingAgent.
        console: rich console for output (default: stdout, seen through ``patch_stdout``).
        input / output: prompt-toolkit I/O (tests pass a pipe input and ``DummyOutput``).
        history_file: input history (default ``$PI_HOME/history``).
    """

    def __init__(
        self,
        shell: Any,
        *,
        console: Console | None = None,
        input: Input | None = None,  # noqa: A002
        output: Output | None = None,
        history_file: Path | None = None,
    ) -> None:
        register_extra_sequences()
        self.shell = shell
        self.console = console or Console(highlight=False)
        self.renderer = PlainRenderer(self.console, shell, on_change=self.invalidate)
        self.pickers = Pickers(shell)
        self.next_kind: Kind = "enter"
        self._task: asyncio.Task[None] | None = None
        self._app: Application[Any] | None = None
        self._quit = False
        self._restore = ""
        shell.subscribe(self.renderer)
        self.session: PromptSession[str] = PromptSession(
            message=self._message,
            history=FileHistory(str(history_file or history_path())),
            completer=PiCompleter(shell),
            complete_while_typing=False,
            key_bindings=build_key_bindings(self),
            bottom_toolbar=self._toolbar,
            reserve_space_for_menu=4,
            input=input,
            output=output,
        )
        # Esc alone must abort promptly, yet ESC CR (Alt+Enter) must still be one chord: a short
        # wait is enough because a terminal sends both bytes of ESC CR in one write.
        self.session.app.ttimeoutlen = 0.05
        self.session.app.timeoutlen = 0.25

    # ------------------------------------------------------------------ state

    @property
    def running(self) -> bool:
        """True while a submitted prompt (or command) is being handled."""
        return self._task is not None and not self._task.done()

    def invalidate(self) -> None:
        """Redraw the prompt area (queue, toolbar) if the prompt is up."""
        if self._app is not None and self._app.is_running:
            self._app.invalidate()

    def _message(self) -> FormattedText:
        state = self.shell.agent.state
        parts: list[tuple[str, str]] = []
        for label, queue in (("steer", state.steering_queue), ("follow-up", state.follow_up_queue)):
            for message in queue:
                text = clip(" ".join(getattr(message, "text", "").split()), 100)
                parts.append(("fg:ansiyellow", f"  queued {label}: {text}\n"))
        parts.append(("bold", "steer › " if self.running else "› "))
        return FormattedText(parts)

    def _toolbar(self) -> str:
        if self.running:
            return (
                f" ● running · turn {self.renderer.turn} · Enter steer · Alt+Enter/Tab follow-up"
                " · Esc abort"
            )
        context = f" · {self.renderer.context_text}" if self.renderer.context_text else ""
        return f" {self.shell.model_id}{context} · Ctrl+J newline · Tab complete · Ctrl+D quit"

    # ------------------------------------------------------------------ main loop

    async def run(self) -> int:
        """Read input until Ctrl+D or /quit; returns the exit code."""
        self.console.print(Text(f"pi · {self.shell.model_id} · {self.shell.cwd}", style="bold"))
        self.console.print(Text(HINT, style="dim"))
        with patch_stdout(raw=True):
            while not self._quit:
                default, self._restore = self._restore, ""
                try:
                    text = await self.session.prompt_async(
                        default=default, pre_run=self._capture_app
                    )
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
            await self._shutdown()
        return EXIT_OK

    def _capture_app(self) -> None:
        self._app = get_app()
        if self._quit:  # a /quit finished between two prompts
            self._app.exit(exception=EOFError())

    async def handle(self, text: str, kind: Kind = "enter") -> None:
        """Act on one accepted input line (public for tests)."""
        if not text.strip():
            return
        text = self.pickers.expand(text)
        parsed = parse_command_line(text)
        command = self.shell.commands.get(parsed[0]) if parsed else None
        if self.running:
            if command is not None:
                # The shell decides which commands may run now (SlashCommand.while_running).
                result = await self.shell.submit(text)
                if result is None:
                    return
                if result.quit:
                    self.abort(None)
                await self._show_result(result)
                return
            if kind == "follow_up":
                self.shell.follow_up(text)
            else:
                self.shell.steer(text)
            return
        self._task = asyncio.create_task(self._submit(text))
        self._task.add_done_callback(lambda _task: self.invalidate())

    async def _submit(self, text: str) -> None:
        try:
            result = await self.shell.submit(text)
        except Exception as exc:  # noqa: BLE001 - provider setup errors must not kill the REPL
            self.console.print(Text(f"error: {exc}", style="bold red"))
            return
        if result is not None:
            await self._show_result(result)
        if self._quit:
            return
        # A steer/follow-up typed after the loop's last drain would sit in the queue forever.
        steer, follow = self.shell.agent.clear_queues()
        leftovers = [*steer, *follow]
        if leftovers:
            for message in leftovers[1:]:
                self.shell.follow_up(message)
            first = getattr(leftovers[0], "text", "")
            self.console.print(Text(f"» delivered: {clip(first, 200)}", style="cyan"))
            await self._submit(first)

    async def _show_result(self, result: CommandResult) -> None:
        if result.output:
            self.console.print(Text(result.output, style="red" if result.error else ""))
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
        """Abort the live run; queued messages go back into the input line, not lost."""
        if not self.running:
            return
        steer, follow = self.shell.agent.clear_queues()
        self.shell.abort()
        restored = "\n".join(getattr(m, "text", "") for m in [*steer, *follow])
        if restored:
            if buffer is not None:
                buffer.text = (buffer.text + "\n" + restored) if buffer.text else restored
                buffer.cursor_position = len(buffer.text)
            else:
                self._restore = restored
        self.console.print(Text("aborting…", style="yellow"))

    async def _shutdown(self) -> None:
        if self._task is not None and not self._task.done():
            self.shell.agent.clear_queues()
            self.shell.abort()
            try:
                await asyncio.wait_for(self._task, timeout=5)
            except (TimeoutError, asyncio.CancelledError):
                self._task.cancel()
        await self.shell.aclose()
