"""Input: what typed text, Esc, Ctrl+C and Alt+Up become (the shell decides, this hands over).

The only input kept here is what was typed before the shell existed (it is built in a thread
after the first frame): sent in order, one input at a time, once the shell is ready.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pi_cli.tui.messages import clean
from pi_cli.tui.widgets.footer import Item

if TYPE_CHECKING:
    from pi_cli.shell import CommandResult, UnknownCommand
    from pi_cli.tui.host import TuiHost

QUIT_WINDOW_S = 2.0  # a second Ctrl+C within this many seconds quits
Intent = Literal["auto", "follow_up"]


class InputControl:
    """Hands input to the shell and shows what commands answer."""

    def __init__(self, host: TuiHost) -> None:
        self.host = host
        self.startup: list[str] = []  # typed before the shell existed
        self.queue: list[tuple[str, str, str]] = []  # the shell's queue as last shown
        self._ctrl_c_at = -1e9
        self.quit_note: str | None = None  # what quitting stopped, printed after the app exits

    # ------------------------------------------------------------------ sending

    def submit(
        self,
        text: str,
        intent: Intent = "auto",
        images: list[Path] | None = None,
        shown: str | None = None,
    ) -> None:
        """Hand ``text`` to the shell, which decides what it becomes (kept until it exists);
        ``shown``: how the transcript shows it (its pastes collapsed)."""
        if not text.strip():
            return
        host = self.host
        if shown is not None:
            host.transcript.remember_shown(text, shown)
        if problem := host.editor.prompt_history.add(text):
            host.notify(problem, severity="warning")
        background = host.options.background
        if background is not None and text.startswith("&"):  # "& prompt": a run in pi serve
            host.run_worker(self._in_background(background, text[1:]), group="input")
            return
        shell = host.shell
        if shell is None or self.startup:  # typed before pi was ready: in order
            self.startup.append(text)
            host.refresh_queue()
            return
        user_command = shell.user_bash.start(text)  # !cmd / !!cmd: the user's own command
        if user_command is not None:
            host.run_worker(
                self.show_result(user_command, text), group="input", exit_on_error=False
            )
            return
        if (unknown := shell.commands.unknown(text)) is not None:  # /tpyo: ask first
            host.run_worker(self._ask_unknown(unknown, text, intent, images), group="input")
            return
        self._send(text, intent, images)

    def _send(self, text: str, intent: Intent, images: list[Path] | None) -> None:
        host, shell = self.host, self.host.shell
        assert shell is not None
        blocks = self._load_images(images or [])
        future = shell.submit(text, intent, blocks or None)
        host.editor.live = shell.busy
        host.run_worker(self.show_result(future, text), group="input", exit_on_error=False)

    async def _ask_unknown(
        self, unknown: UnknownCommand, text: str, intent: Intent, images: list[Path] | None
    ) -> None:
        """Send a line no command is called as a prompt, run the command it is close to, or put
        it back into the editor (Esc)."""
        from pi_cli.tui.screens.choice import ChoiceScreen

        options = [("send", "Send it to the model as a prompt")]
        options += [(f"/{name}", f"Run {unknown.corrected(name)}") for name in unknown.close]
        options.append(("edit", "Back to the editor to fix it"))
        title = f"Unknown command /{unknown.name}"
        answer = await self.host.push_screen_wait(
            ChoiceScreen(title, [unknown.question], options, escape="Back to the editor")
        )
        if answer == "send":
            self._send(text, intent, images)
        elif answer is not None and answer.startswith("/"):
            self._send(unknown.corrected(answer[1:]), intent, images)
        else:
            self.restore([text])

    async def _in_background(self, start: Callable[[str], Awaitable[str]], prompt: str) -> None:
        self.host.transcript.notice(clean(await start(prompt.strip())), "info")

    def _load_images(self, paths: list[Path]) -> list[Any]:
        from pi_cli.shell import ImageError, load_image

        blocks = []
        for path in paths:
            try:
                blocks.append(load_image(path))
            except ImageError as exc:
                self.host.notify(f"Not attached: {exc}", severity="warning")
        return blocks

    async def show_result(self, future: asyncio.Future[CommandResult | None], text: str) -> None:
        """Wait for a submitted input; show the command's result (a failure becomes a notice)."""
        try:
            result = await future
            if result is not None:
                await self.command_result(result, text)
        except Exception as exc:  # noqa: BLE001 - keep the app alive, show the reason
            self.host.transcript.notice(clean(f"{type(exc).__name__}: {exc}"), "error")
        self.host.refresh_status()

    async def send_startup(self) -> None:
        """Send what was typed while pi started, one input at a time, commands as commands."""
        shell = self.host.shell
        assert shell is not None
        while self.startup:
            await shell.wait_idle()
            text = self.startup.pop(0)
            self.host.refresh_queue()
            future = shell.submit(text)
            self.host.editor.live = shell.busy
            await self.show_result(future, text)
            await shell.wait_idle()
        self.host.refresh_status()

    async def command_result(self, result: CommandResult, text: str = "") -> None:
        """Quit, open a picker, copy, or show the command's output."""
        from pi_cli.tui.controllers import pick_commands

        host = self.host
        if result.quit:
            self.quit()
            return
        if result.clipboard is not None:
            host.copy_to_clipboard(result.clipboard)
        if result.edit is not None:  # /memory: the file in $EDITOR, the terminal handed over
            from pi_cli.tui.external_editor import edit_file

            edit_file(host, result.edit)
        if result.action is not None:
            pick_commands.open_picker(host, result.action)
        elif result.output and not (_is_compact(text) and not result.error):
            # /compact's own line would repeat the compaction block the event drew.
            host.transcript.notice(clean(result.output), "error" if result.error else "info")

    # ------------------------------------------------------------------ keys

    def escape(self) -> None:
        """Esc: abort what is live; what is queued comes back into the editor."""
        if not self.host.is_live and not self.startup:
            return
        self.restore(self.take_startup())
        if self.host.shell is not None:
            self.host.shell.abort()  # what the shell queued comes back as m.QueueGivenBack

    def interrupt(self) -> None:
        """Ctrl+C: copy a selection; else abort a live run; else clear, and twice quits."""
        host = self.host
        selected = host.screen.get_selected_text() or host.editor.selected_text
        if selected:
            host.copy_to_clipboard(selected)
            host.screen.clear_selection()
            self.hint(f"Copied {len(selected)} characters.")
            return
        if host.is_live or self.startup:
            self.escape()
            self.hint("Aborted. Ctrl+C again clears the editor; twice quits.")
            return
        now = time.monotonic()
        if now - self._ctrl_c_at < QUIT_WINDOW_S:
            self.quit()
            return
        self._ctrl_c_at = now
        host.editor.set_text("")
        self.hint("Press Ctrl+C again to quit.", "$warning")

    def hint(self, text: str, style: str = "$footer-text") -> None:
        """A transient line-1 hint in the footer (cleared after a few seconds)."""
        footer = self.host.footer
        item = Item(text, style, priority=99)
        footer.set_hint(item)

        def clear() -> None:
            if footer.state.hint is item:
                footer.set_hint(None)

        footer.set_timer(QUIT_WINDOW_S, clear)

    def dequeue(self) -> None:
        """Alt+Up: everything queued back into the editor."""
        shell = self.host.shell
        texts = [item.text for item in shell.take_queued()] if shell else []
        self.restore([*texts, *self.take_startup()])

    def take_startup(self) -> list[str]:
        """Take back what was typed while pi started."""
        taken, self.startup = self.startup, []
        self.host.refresh_queue()
        return taken

    def restore(self, texts: list[str]) -> None:
        """Put queued texts back into the editor, before what is typed there."""
        if texts:
            editor = self.host.editor
            current = editor.text
            editor.set_text("\n".join([*texts, current] if current.strip() else texts))
        self.host.refresh_queue()

    def cycle_thinking(self) -> None:
        """Alt+T: the next thinking level, through the shell's ``/thinking``."""
        from pi_cli.shell import THINKING_LEVELS

        shell = self.host.shell
        if shell is not None:
            levels = [level for level in THINKING_LEVELS if level != "minimal"]
            index = levels.index(shell.thinking) if shell.thinking in levels else 0
            self.submit(f"/thinking {levels[(index + 1) % len(levels)]}")

    def quit(self) -> None:
        """Abort any run and exit (a run in the server goes on: only this client leaves); what
        that stops (the run, background shells) is said once the terminal is back."""
        from pi_cli.shell import quit_report

        shell = self.host.shell
        self.quit_note = quit_report(shell)
        if shell is not None and shell.busy and not shell.remote:
            shell.abort()
        self.host.exit(0)


def _is_compact(text: str) -> bool:
    return text.strip().split(" ", 1)[0] == "/compact"
