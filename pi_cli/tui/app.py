"""PiApp: the interactive TUI around one shell: a local CodingAgent, or one living in ``pi serve``
(any :class:`~pi_cli.shell.FrontShell`).

The app keeps no run state of its own: it subscribes a :class:`Bridge` to the shell (its
messages go to the transcript, which renders them; the few the app needs bubble up), and turns
keys into calls on the shell. The work is split into controllers that see the app through
:class:`~pi_cli.tui.host.TuiHost`: input (:mod:`input_control`), scrolling (:mod:`scrolling`),
the transcript cursor (:mod:`cursor`), pickers, the queue view, notifications (:mod:`attention`).
Every key comes from the one table in :mod:`keymap`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import App, ComposeResult
from textual.binding import BindingType

from pi_cli.tui import agent_messages as am
from pi_cli.tui import messages as m
from pi_cli.tui.completion import Completer
from pi_cli.tui.controllers.activity import TICK_S, Activity
from pi_cli.tui.controllers.boot import start_shell
from pi_cli.tui.controllers.cursor import TranscriptCursor
from pi_cli.tui.controllers.input import InputControl
from pi_cli.tui.controllers.scrolling import NewOutputMarker, ScrollControl
from pi_cli.tui.controllers.todos import TodoPanels
from pi_cli.tui.options import TuiOptions
from pi_cli.tui.prompt_history import PromptHistory
from pi_cli.tui.status import home_relative, shell_status
from pi_cli.tui.theming import DEFAULT_THEME, load_themes, token_defaults
from pi_cli.tui.widgets.editor import CompletionMenu, Editor
from pi_cli.tui.widgets.footer import Item, Status, StatusFooter
from pi_cli.tui.widgets.header import StartupHeader, header_parts
from pi_cli.tui.widgets.queue_view import QueueView
from pi_cli.tui.widgets.transcript import Transcript
from pi_cli.tui.widgets.ui_pieces import UiPieces

if TYPE_CHECKING:
    from textual.driver import Driver

    from pi_cli.shell import FrontShell
    from pi_cli.tui.bridge import Bridge
    from pi_cli.tui.controllers.attention import Attention


class PiApp(App[int], inherit_bindings=False):
    """The interactive app."""

    CSS_PATH = "app.tcss"
    BINDINGS: ClassVar[list[BindingType]] = []  # every key is in the table of keymap.py
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self,
        shell: FrontShell | None,
        options: TuiOptions | None = None,
        *,
        shell_factory: Callable[[], FrontShell | str] | None = None,
        connect: Callable[[], Awaitable[FrontShell | str]] | None = None,
    ) -> None:
        """Args:
        shell: the shell to drive, or ``None`` with ``shell_factory``.
        options: presentation options.
        shell_factory: builds the shell (or returns why it cannot) in a thread after the
            first frame, so the user sees pi at once; input typed meanwhile is kept.
        connect: reaches a shell living elsewhere (``pi attach``), on the app's loop, after the
            first frame likewise.
        """
        super().__init__()
        self.shell: FrontShell | None = shell
        self.options = options or TuiOptions()
        self.startup_error: str | None = None
        self._shell_factory = shell_factory
        self._connect = connect
        self.inputs = InputControl(self)
        self.inputs.startup.extend(self.options.startup_inputs)  # pi -r: /resume once ready
        self.activity = Activity(self.options.clock)
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
        self.extended_keys = self.options.extended_keys
        self.bridge: Bridge | None = None
        self.attention: Attention | None = None
        self.runs_rendered = 0

    def attach_shell(self, shell: FrontShell) -> None:
        """Drive ``shell``: its events go to the transcript, the app's commands into it."""
        from pi_cli.tui.bridge import Bridge  # imports agent_core: kept off the first-frame path
        from pi_cli.tui.controllers.attention import Attention
        from pi_cli.tui.controllers.status_command import attach_status_line
        from pi_cli.tui.tui_commands import register_tui_commands

        self.shell = shell
        self.bridge = Bridge(self.transcript.post_message, shell.describe_call)
        self.transcript.describe = shell.describe_call
        self.attention = Attention(self, shell.settings.notifications, self.options.env)
        self._unsubscribe = shell.subscribe(self.bridge)
        shell.dialogs.editor_text = lambda: self.editor.text  # ctx.ui.get_editor_text
        for piece in shell.dialogs.ui_state():  # set before this app subscribed
            self.bridge(piece)
        register_tui_commands(self, shell)
        self.todos.show_stored(shell)
        self.on_extensions_reloaded(m.ExtensionsReloaded())  # their keys
        self.status_line = attach_status_line(self.footer, shell)  # the statusLine command

    def on_extensions_reloaded(self, message: m.ExtensionsReloaded) -> None:
        from pi_cli.tui.controllers.extension_ui import rebind_keys

        rebind_keys(self, self.shell)
        self.refresh_status()

    # ------------------------------------------------------------------ layout

    def get_driver_class(self) -> type[Driver]:
        """Textual's Linux driver, made to survive losing the terminal (:mod:`.driver`)."""
        from textual.drivers.linux_driver import LinuxDriver

        default = super().get_driver_class()
        if default is LinuxDriver:
            from pi_cli.tui.driver import PiDriver

            return PiDriver
        return default

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return token_defaults()

    def _header_parts(self) -> tuple[list[str], list[str], list[tuple[str, str]]]:
        return header_parts(self.shell, self.cwd, self.options.keymap, self.extended_keys)

    @property
    def cwd(self) -> Path:
        """The working directory (known before the shell is built)."""
        if self.shell is not None:
            return self.shell.cwd
        return (self.options.cwd or Path.cwd()).resolve()

    def compose(self) -> ComposeResult:
        from pi_cli.shell import pi_home

        self.transcript = Transcript(self.options.clock)
        self.marker = NewOutputMarker()
        self.menu = CompletionMenu()
        self.queue_view = QueueView()
        history = self.options.history_path or pi_home() / "history"
        self.editor = Editor(
            self.menu,
            Completer(self.cwd, self._command_candidates, self._argument_candidates),
            PromptHistory(history),
            self.cwd,
        )
        self.editor.cursor_blink = self.options.cursor_blink
        self.footer = StatusFooter(id="footer")
        self.ext_panel, self.ext_status = UiPieces(id="ext-panel"), UiPieces(id="ext-status")
        self.scroller = ScrollControl(self.transcript, self.marker)
        self.cursor = TranscriptCursor(self.transcript)
        self.todos = TodoPanels(self)
        with self.transcript:
            yield StartupHeader(*self._header_parts(), loading=self.shell is None)
            yield self.transcript.view
        yield self.marker
        yield self.ext_panel
        yield self.queue_view
        yield self.menu
        yield self.editor
        yield self.ext_status
        yield self.footer

    async def on_unmount(self) -> None:
        """Close the provider's HTTP client before the event loop goes away."""
        from pi_cli.tui.controllers.status_command import close_status_line
        from pi_cli.tui.terminal import MODIFY_OTHER_KEYS_OFF, write_raw

        write_raw(self, MODIFY_OTHER_KEYS_OFF)
        await close_status_line(getattr(self, "status_line", None))
        if self.shell is not None:
            await self.shell.aclose()

    async def on_mount(self) -> None:
        from pi_cli.tui.terminal import enable_modified_keys, exit_on_signals, redraw_after_resume

        if self.options.keymap:
            self.set_keymap(self.options.keymap)
        enable_modified_keys(self)
        redraw_after_resume(self)
        if not self.is_headless:  # tests keep their process's own signal handling
            exit_on_signals(self)
        self.editor.focus()
        for warning in self.startup_warnings:
            self.transcript.notice(warning, "warning")
        if self.shell is not None:
            self.attach_shell(self.shell)  # after compose: the bridge posts to the transcript
            await self.show_history("")
        else:
            start_shell(self, self._shell_factory, self._connect)
        self.refresh_status()
        self.set_interval(TICK_S, self.tick)

    async def on_shell_built(self, message: m.ShellBuilt) -> None:
        result = message.result
        if isinstance(result, str):
            self.startup_error = result
            self.exit(2, return_code=2)
            return
        self.attach_shell(result)
        self.query_one(StartupHeader).show(*self._header_parts())
        await self.show_history("")
        self.refresh_status()
        if self.inputs.startup:
            self.run_worker(self.inputs.send_startup(), group="startup", exit_on_error=False)

    async def show_history(self, reason: str) -> None:
        """Draw the conversation the shell holds (``pi -c``, ``--session``, ``/resume``...)."""
        from pi_cli.tui.history_view import show_history

        await show_history(self, reason)

    def _command_candidates(self, prefix: str) -> list[tuple[str, str]]:
        commands = self.shell.commands.complete(prefix) if self.shell else []
        return [(c.name, c.description) for c in commands]

    def _argument_candidates(self, command: str, typed: str) -> list[tuple[str, str]]:
        return self.shell.commands.complete_argument(command, typed) if self.shell else []

    # ------------------------------------------------------------------ status

    def status(self) -> Status:
        """What the footer shows now."""
        label = self.options.cwd_label or home_relative(self.cwd)
        return shell_status(self.shell, label, self.options.session_label)

    def refresh_status(self) -> None:
        """Refresh footer and queue view."""
        self.footer.show(self.status())
        mcp = self.shell.mcp.footer() if self.shell is not None else ""  # "MCP 1/2 !"
        self.footer.set_item("mcp", Item(mcp, "$footer-dim", priority=30) if mcp else None)
        servers = self.shell.lsp.started if self.shell is not None else None
        lsp = servers.footer() if servers is not None else ""  # "LSP python✓ c…"
        self.footer.set_item("lsp", Item(lsp, "$footer-dim", priority=25) if lsp else None)
        self.refresh_queue()

    def refresh_queue(self) -> None:
        """Show what is queued: the shell's queue, then input typed before the shell existed."""
        queue = self.inputs.queue
        steering = [text for _, text, kind in queue if kind == "steer"]
        later = [text for _, text, kind in queue if kind != "steer"]
        self.queue_view.show_queues(steering, [*later, *self.inputs.startup])

    def tick(self) -> None:
        """A few times a second: spinners, elapsed times, the activity line, the marker."""
        self.activity.tick(self)

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
            and not self.inputs.startup
            and self.runs_rendered == self.bridge.runs_ended
        )

    # ------------------------------------------------------------------ editor messages

    def submit_text(self, text: str) -> None:
        """Hand ``text`` to the shell (pickers type their choice as a command)."""
        self.inputs.submit(text)

    @on(Editor.Submitted)
    def _submitted(self, event: Editor.Submitted) -> None:
        self.cursor.clear()
        self.inputs.submit(event.text, "auto", event.images, event.shown)

    @on(Editor.FollowUpRequested)
    def _follow_up(self, event: Editor.FollowUpRequested) -> None:
        self.inputs.submit(event.text, "follow_up", event.images, event.shown)

    @on(Editor.EscapePressed)
    def _escape(self) -> None:
        if not self.cursor.clear():  # Esc first clears the cursor, then aborts
            self.inputs.escape()

    @on(Editor.DequeueRequested)
    def _dequeue(self) -> None:
        self.inputs.dequeue()

    @on(Editor.QuitRequested)
    def _quit_requested(self) -> None:
        self.inputs.quit()

    @on(Editor.KeyPressed)
    def _key(self, event: Editor.KeyPressed) -> None:
        from pi_cli.tui.controllers.key_actions import run_key_action

        run_key_action(self, event.name, event.args)

    def action_extension_key(self, key_id: str) -> None:
        """An extension's key binding: its handler runs (on the extension's own thread)."""
        if self.shell is not None and self.shell.extensions is not None:
            self.shell.extensions.start_key(key_id)

    def action_suspend(self) -> None:
        """Ctrl+Z: back to the shell; ``fg`` resumes."""
        self.action_suspend_process()

    # ------------------------------------------------------------------ bridge messages

    def switch_theme(self, name: str) -> None:
        """Apply a theme and remember it in the global settings."""
        from pi_cli.tui.theming import switch_theme

        switch_theme(self, name)

    def on_run_started(self, message: m.RunStarted) -> None:
        self.editor.live = self.is_live
        self.transcript.view.set_throttled(True)
        self.activity.run_started()

    def on_run_ended(self, message: m.RunEnded) -> None:
        self.transcript.view.set_throttled(False)
        self.activity.run_ended()
        state = self.shell.state if self.shell is not None else "idle"
        self.footer.set_activity(self.activity.item(state, 0, []))  # now, not at the next tick
        self.refresh_status()
        self.runs_rendered += 1
        if self.attention is not None:
            self.attention.request(f"Run failed: {message.error}" if message.error else "Done.")

    def on_retry_shown(self, message: m.RetryShown) -> None:
        self.activity.retrying(message.text, message.delay_s)

    def on_turn_ended(self, message: m.TurnEnded) -> None:
        self.activity.status_stale = True  # the footer's tokens: drawn at the next tick

    def on_status_changed(self, message: m.StatusChanged) -> None:
        self.refresh_status()

    @on(m.ApprovalRequested)
    @on(m.ApprovalClosed)
    def _approval(self, message: m.ApprovalRequested | m.ApprovalClosed) -> None:
        from pi_cli.tui.controllers.approvals import route  # the modal loads when first needed

        if isinstance(message, m.ApprovalRequested) and self.attention is not None:
            self.attention.request(f"Approval needed: {message.tool_name} {message.title}")
        route(self, message, self.shell.answer if self.shell else None)

    @on(m.DialogShown)
    @on(m.DialogClosed)
    @on(m.UiPieceChanged)
    def _extension_ui(self, message: m.DialogShown | m.DialogClosed | m.UiPieceChanged) -> None:
        from pi_cli.tui.controllers.extension_ui import route_ui  # the modal loads when needed

        route_ui(self, self, message)

    def on_jump_to_bottom(self, message: m.JumpToBottom) -> None:
        self.scroller.edge(bottom=True)

    async def on_session_switched(self, message: m.SessionSwitched) -> None:
        self.transcript.reset()
        self.cursor.clear()
        await self.show_history(message.reason)
        self.refresh_status()

    def on_queue_given_back(self, message: m.QueueGivenBack) -> None:
        self.inputs.restore([*message.texts, *self.inputs.take_startup()])

    def on_todos_shown(self, message: am.TodosShown) -> None:
        self.todos.show(message.items)

    def on_queue_shown(self, message: m.QueueShown) -> None:
        from pi_cli.tui.screens.queue_screen import QueueScreen

        self.inputs.queue = message.items
        self.refresh_queue()
        if isinstance(self.screen, QueueScreen):
            self.screen.show_items(message.items)

    def on_shell_busy(self, message: m.ShellBusy) -> None:
        self.editor.live = self.is_live
