"""PiApp: the interactive TUI around one :class:`CodingAgent` shell.

The app keeps no run state: a :class:`Bridge` turns shell events into messages for the
transcript (the few the app needs bubble up); keys become ``submit`` / ``abort`` /
``take_queued`` / ``answer`` calls on the shell. It holds only what was typed before the shell
existed (built in a thread after the first frame).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from textual import on, work
from textual.app import App, ComposeResult
from textual.screen import ModalScreen

from pi_cli.tui import messages as m
from pi_cli.tui.agent_panels import AgentPanels
from pi_cli.tui.completion import Completer
from pi_cli.tui.keymap import bindings, has_extended_keys, key_hints
from pi_cli.tui.messages import clean
from pi_cli.tui.options import TuiOptions
from pi_cli.tui.status import home_relative, shell_status, short_path
from pi_cli.tui.theming import DEFAULT_THEME, load_themes, token_defaults
from pi_cli.tui.widgets.editor import CompletionMenu, Editor
from pi_cli.tui.widgets.footer import Status, StatusFooter
from pi_cli.tui.widgets.header import StartupHeader
from pi_cli.tui.widgets.queue_view import QueueView
from pi_cli.tui.widgets.transcript import Transcript

if TYPE_CHECKING:
    from pi_cli.shell.coding_agent import CodingAgent
    from pi_cli.shell.slash_commands import CommandResult
    from pi_cli.tui.bridge import Bridge

QUIT_WINDOW_S = 2.0  # second Ctrl+C within this many seconds quits
Intent = Literal["auto", "follow_up"]


class PiApp(AgentPanels, App[int]):
    """The interactive app (the todo panel: :class:`AgentPanels`)."""

    CSS_PATH = "app.tcss"
    BINDINGS = bindings("app")
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        shell: CodingAgent | None,
        options: TuiOptions | None = None,
        *,
        shell_factory: Callable[[], CodingAgent | str] | None = None,
    ) -> None:
        """Args:
        shell: the shell to drive, or ``None`` with ``shell_factory``.
        options: presentation options.
        shell_factory: builds the shell (or returns why it cannot) in a thread after the
            first frame, so the user sees pi at once; input typed meanwhile is kept.
        """
        super().__init__()
        self.shell: CodingAgent | None = shell
        self.options = options or TuiOptions()
        self.startup_error: str | None = None
        self._shell_factory = shell_factory
        # Typed before the shell existed: sent in order, one input at a time, once it is ready.
        self._startup_inputs: list[str] = []
        self._queue: list[tuple[str, str, str]] = []  # the shell's queue as last shown
        self.pi_themes, problems = load_themes(self.options.user_theme_dir)
        for theme in self.pi_themes.values():
            self.register_theme(theme)
        self.startup_warnings = list(self.options.warnings)
        self.startup_warnings += [f"Theme {p.path}: {p.reason}" for p in problems]
        wanted = self.options.theme or (shell.settings.theme if shell else None) or DEFAULT_THEME
        if wanted not in self.pi_themes:
            self.startup_warnings.append(f"Unknown theme {wanted!r}; using {DEFAULT_THEME}.")
            wanted = DEFAULT_THEME
        self.theme = wanted
        self._ctrl_c_at = -1e9
        self.bridge: Bridge | None = None
        self.runs_rendered = 0

    def attach_shell(self, shell: CodingAgent) -> None:
        """Drive ``shell``: its events go to the transcript, the app's commands into it."""
        from pi_cli.shell.slash_commands import SlashCommand
        from pi_cli.tui.bridge import Bridge  # imports agent_core: kept off the first-frame path
        from pi_cli.tui.pickers import theme_command

        self.shell = shell
        self.bridge = Bridge(self.transcript.post_message, shell.describe_call)
        self._unsubscribe = shell.subscribe(self.bridge)
        if shell.commands.get("theme") is None:
            handler = theme_command(self)
            shell.commands.register(
                SlashCommand(
                    "theme", "Switch the colour theme", handler, usage="[name]", source="tui"
                )
            )

    # ------------------------------------------------------------------ layout

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return token_defaults()

    def _header_parts(self) -> tuple[list[str], list[str], list[tuple[str, str]]]:
        shell = self.shell
        extended = self.options.extended_keys
        hints = key_hints(
            self.options.keymap, has_extended_keys() if extended is None else extended
        )
        if shell is None:
            return [], [], hints
        files = [short_path(f.path, self.cwd) for f in shell.context_files]
        return files, [skill.name for skill in shell.skills], hints

    @property
    def cwd(self) -> Path:
        """The working directory (known before the shell is built)."""
        if self.shell is not None:
            return self.shell.cwd
        return (self.options.cwd or Path.cwd()).resolve()

    def compose(self) -> ComposeResult:
        self.transcript = Transcript(self.options.clock)
        self.menu = CompletionMenu()
        self.queue_view = QueueView()
        self.editor = Editor(self.menu, Completer(self.cwd, self._command_candidates))
        self.editor.cursor_blink = self.options.cursor_blink
        self.footer = StatusFooter(id="footer")
        with self.transcript:
            yield StartupHeader(*self._header_parts(), loading=self.shell is None)
        yield self.queue_view
        yield self.menu
        yield self.editor
        yield self.footer

    async def on_unmount(self) -> None:
        """Close the provider's HTTP client before the event loop goes away."""
        if self.shell is not None:
            await self.shell.aclose()

    async def on_mount(self) -> None:
        if self.options.keymap:
            self.set_keymap(self.options.keymap)
        self.editor.focus()
        for warning in self.startup_warnings:
            await self.transcript.notice(warning, "warning")
        if self.shell is not None:
            self.attach_shell(self.shell)  # after compose: the bridge posts to the transcript
            await self._show_history()
        elif self._shell_factory is not None:
            # After the first frame, so building the shell never delays it.
            self.call_after_refresh(self.run_worker, self._build_shell, thread=True, group="boot")
        self.refresh_status()

    def _build_shell(self) -> None:
        """Thread worker: build the shell, then hand it to the app's thread."""
        assert self._shell_factory is not None
        try:
            result = self._shell_factory()
            import pi_cli.tui.widgets.turn_panel  # noqa: F401 - warm Markdown for the first turn
        except Exception as exc:  # noqa: BLE001 - a bug; report it instead of hanging on "starting"
            result = f"internal error while starting: {type(exc).__name__}: {exc}"
        self.post_message(m.ShellBuilt(result))  # thread-safe: handled on the app's loop

    async def on_shell_built(self, message: m.ShellBuilt) -> None:
        result = message.result
        if isinstance(result, str):
            self.startup_error = result
            self.exit(2, return_code=2)
            return
        self.attach_shell(result)
        self.query_one(StartupHeader).show(*self._header_parts())
        await self._show_history()
        self.refresh_status()
        if self._startup_inputs:
            self.send_startup_inputs()

    async def _show_history(self) -> None:
        """Draw the conversation the shell was built with (``pi -c``, ``--session``)."""
        assert self.shell is not None
        await self.transcript.history(list(self.shell.messages))

    def _command_candidates(self, prefix: str) -> list[tuple[str, str]]:
        if self.shell is None:
            return []
        return [(c.name, c.description) for c in self.shell.commands.complete(prefix)]

    # ------------------------------------------------------------------ status

    def status(self) -> Status:
        """What the footer shows now."""
        return shell_status(self.shell, self._cwd_label(), self.options.session_label)

    def _cwd_label(self) -> str:
        return self.options.cwd_label or home_relative(self.cwd)

    def refresh_status(self) -> None:
        """Refresh footer and queue view."""
        self.footer.show(self.status())
        self.refresh_queue()

    def refresh_queue(self) -> None:
        """Show what is queued: the shell's queue, then input typed before the shell existed."""
        steering = [text for _, text, kind in self._queue if kind == "steer"]
        later = [text for _, text, kind in self._queue if kind != "steer"]
        self.queue_view.show_queues(steering, [*later, *self._startup_inputs])

    @property
    def is_live(self) -> bool:
        """The shell is handling an input (a run, a command, compaction)."""
        return self.shell is not None and self.shell.busy

    @property
    def is_settled(self) -> bool:
        """No input is being handled and every run's events have been rendered (tests, bench)."""
        return (
            self.bridge is not None
            and not self.is_live
            and not self._startup_inputs
            and self.runs_rendered == self.bridge.runs_ended
        )

    # ------------------------------------------------------------------ input

    @on(Editor.Submitted)
    def _submitted(self, event: Editor.Submitted) -> None:
        self.submit_text(event.text)

    @on(Editor.FollowUpRequested)
    def _follow_up(self, event: Editor.FollowUpRequested) -> None:
        self.submit_text(event.text, "follow_up")

    def submit_text(self, text: str, intent: Intent = "auto") -> None:
        """Hand ``text`` to the shell, which decides what it becomes (kept until it exists)."""
        if not text.strip():
            return
        if self.shell is None or self._startup_inputs:  # typed before pi was ready: in order
            self._startup_inputs.append(text)
            self.refresh_queue()
            return
        future = self.shell.submit(text, intent)
        self.editor.live = self.shell.busy
        self.show_result(future)

    @work(group="input", exit_on_error=False)
    async def show_result(self, future: asyncio.Future[CommandResult | None]) -> None:
        """Wait for a submitted input; show the command's result (a failure becomes a notice)."""
        try:
            result = await future
            if result is not None:
                await self._command_result(result)
        except Exception as exc:  # noqa: BLE001 - keep the app alive, show the reason
            await self.transcript.notice(clean(f"{type(exc).__name__}: {exc}"), "error")
        self.refresh_status()

    @work(group="startup", exit_on_error=False)
    async def send_startup_inputs(self) -> None:
        """Send what was typed while pi started, one input at a time, commands as commands."""
        assert self.shell is not None
        while self._startup_inputs:
            await self.shell.wait_idle()
            text = self._startup_inputs.pop(0)
            self.refresh_queue()
            future = self.shell.submit(text)
            self.editor.live = self.shell.busy
            try:
                result = await future
                if result is not None:
                    await self._command_result(result)
            except Exception as exc:  # noqa: BLE001
                await self.transcript.notice(clean(f"{type(exc).__name__}: {exc}"), "error")
            await self.shell.wait_idle()
        self.refresh_status()

    @on(Editor.EscapePressed)
    def _escape(self) -> None:
        if not self.is_live and not self._startup_inputs:
            return
        self._take_startup_inputs()
        if self.shell is not None:
            self.shell.abort()  # what is queued comes back as m.QueueGivenBack

    @on(Editor.DequeueRequested)
    def _dequeue(self) -> None:
        texts = [item.text for item in self.shell.take_queued()] if self.shell else []
        self._restore([*texts, *self._take_startup_inputs()])

    def _take_startup_inputs(self) -> list[str]:
        taken, self._startup_inputs = self._startup_inputs, []
        self.refresh_queue()
        return taken

    def _restore(self, texts: list[str]) -> None:
        """Put queued texts back into the editor, before what is typed there."""
        if texts:
            current = self.editor.text
            self.editor.set_text("\n".join([*texts, current] if current.strip() else texts))
        self.refresh_queue()

    def on_queue_given_back(self, message: m.QueueGivenBack) -> None:
        self._restore([*message.texts, *self._take_startup_inputs()])

    def on_queue_shown(self, message: m.QueueShown) -> None:
        self._queue = message.items
        self.refresh_queue()

    def on_shell_busy(self, message: m.ShellBusy) -> None:
        self.editor.live = self.is_live

    def action_clear_or_quit(self) -> None:
        """Ctrl+C: clear the editor; a second press within 2 s quits."""
        now = time.monotonic()
        if now - self._ctrl_c_at < QUIT_WINDOW_S:
            self.action_quit_app()
            return
        self._ctrl_c_at = now
        self.editor.set_text("")
        self.notify("Press Ctrl+C again to quit.", timeout=QUIT_WINDOW_S)

    @on(Editor.QuitRequested)
    def _quit_requested(self) -> None:
        self.action_quit_app()

    def action_quit_app(self) -> None:
        """Abort any run and exit."""
        if self.shell is not None and self.shell.busy:
            self.shell.abort()
        self.exit(0)

    def action_toggle_tools(self) -> None:
        """Ctrl+O: hide or show tool output everywhere."""
        self.transcript.toggle_class("-hide-tool-output")

    def action_toggle_thinking(self) -> None:
        """Ctrl+T: hide or show thinking blocks."""
        self.transcript.toggle_class("-hide-thinking")

    # ------------------------------------------------------------------ results and pickers

    async def _command_result(self, result: CommandResult) -> None:
        from pi_cli.tui import pickers

        if result.quit:
            self.action_quit_app()
        elif result.action is not None:
            pickers.open_picker(self, result.action)
        elif result.output:
            await self.transcript.notice(clean(result.output), "error" if result.error else "info")

    def switch_theme(self, name: str) -> None:
        """Apply a theme and remember it in the global settings."""
        from pi_cli.tui.theming import save_theme_choice

        self.theme = name
        if self.options.persist_theme and (problem := save_theme_choice(name)):
            self.notify(problem, severity="warning")

    # ------------------------------------------------------------------ messages the app needs

    def on_run_started(self, message: m.RunStarted) -> None:
        self.editor.live = self.is_live

    def on_run_ended(self, message: m.RunEnded) -> None:
        self.refresh_status()
        self.runs_rendered += 1

    def on_turn_ended(self, message: m.TurnEnded) -> None:
        self.refresh_status()

    def on_status_changed(self, message: m.StatusChanged) -> None:
        self.refresh_status()

    @on(m.ApprovalRequested)
    @on(m.ApprovalClosed)
    def _approval(self, message: m.ApprovalRequested | m.ApprovalClosed) -> None:
        from pi_cli.tui.approvals import route  # the modal loads when first needed

        route(self, message, self.shell.answer if self.shell else None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Shift+Tab stays with an open question's (or picker's) own keys.
        return action != "cycle_permission_mode" or not isinstance(self.screen, ModalScreen)

    def action_cycle_permission_mode(self) -> None:
        """Shift+Tab: the next permission mode (the footer shows it)."""
        if self.shell is not None:
            self.shell.permissions.cycle()

    async def on_session_switched(self, message: m.SessionSwitched) -> None:
        assert self.shell is not None
        await self.transcript.reset()
        await self.transcript.notice(
            f"Session {self.shell.session.session_id[:8]} ({message.reason})."
        )
        await self.transcript.history(list(self.shell.messages))
        self.refresh_status()
