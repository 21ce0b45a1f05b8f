"""PiApp: the interactive TUI around one :class:`CodingAgent` shell.

The app posts no agent logic of its own: it subscribes a :class:`Bridge` to the shell, renders
the messages it posts, and turns key presses into ``submit`` / ``steer`` / ``follow_up`` /
``abort`` calls on the shell. Each run is a worker in the ``agent`` group.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on, work
from textual.app import App, ComposeResult

from pi_cli.tui import messages as m
from pi_cli.tui.completion import Completer
from pi_cli.tui.keymap import bindings, has_extended_keys, key_hints
from pi_cli.tui.messages import clean
from pi_cli.tui.pickers_mixin import PickerActions
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


def home_relative(path: Path) -> str:
    """``path`` with the home directory written as ``~`` (``~/src/pi``)."""
    home = Path.home()
    return (
        "~/" + str(path.relative_to(home))
        if path != home and path.is_relative_to(home)
        else str(path)
    )


@dataclass
class TuiOptions:
    """Presentation options; tests inject fixed values so pictures are deterministic."""

    theme: str | None = None
    keymap: dict[str, str] = field(default_factory=dict)
    clock: Callable[[], float] = time.monotonic
    cwd_label: str | None = None
    session_label: str | None = None
    extended_keys: bool | None = None  # None: guess from the environment
    user_theme_dir: Path | None = None
    persist_theme: bool = True
    cursor_blink: bool = True
    warnings: list[str] = field(default_factory=list)
    cwd: Path | None = None  # shown until a deferred shell is ready


class PiApp(PickerActions, App[int]):
    """The interactive app."""

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
        self.shell: CodingAgent | None = None
        self.options = options or TuiOptions()
        self.startup_error: str | None = None
        self._shell_factory = shell_factory
        # The app's own queue: input the agent cannot take now (pi is starting, or the shell is
        # busy without a model run: compaction, a command). Shown as follow-ups; one entry is
        # submitted whenever the shell is idle again (see _drain_pending).
        self._pending_inputs: list[str] = []
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
        self._busy = False  # a worker is handling input (a run, or a command)
        self._ctrl_c_at = -1e9
        self.bridge: Bridge | None = None
        self.runs_rendered = 0
        if shell is not None:
            self._attach(shell)

    def _attach(self, shell: CodingAgent) -> None:
        from pi_cli.tui.bridge import Bridge  # imports agent_core: kept off the first-frame path

        self.shell = shell
        self.bridge = Bridge(self.post_message, lambda: shell.agent.state.error)
        self._unsubscribe = shell.subscribe(self.bridge)
        self._register_commands()

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
        skills = [getattr(s, "name", str(s)) for s in getattr(shell, "skills", None) or []]
        files = [self._short_path(f.path) for f in shell.context_files]
        return files, skills, hints

    def _header(self) -> StartupHeader:
        return StartupHeader(*self._header_parts(), loading=self.shell is None)

    @property
    def cwd(self) -> Path:
        """The working directory (known before the shell is built)."""
        return (
            self.shell.cwd if self.shell is not None else (self.options.cwd or Path.cwd()).resolve()
        )

    def compose(self) -> ComposeResult:
        self.transcript = Transcript(self.options.clock)
        self.menu = CompletionMenu()
        self.queue_view = QueueView()
        self.editor = Editor(self.menu, Completer(self.cwd, self._command_candidates))
        self.editor.cursor_blink = self.options.cursor_blink
        self.footer = StatusFooter(id="footer")
        with self.transcript:
            yield self._header()
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
        self.refresh_status()
        for warning in self.startup_warnings:
            await self.transcript.notice(warning, "warning")
        if self.shell is not None:
            await self._show_history()
        if self.shell is None and self._shell_factory is not None:
            # After the first frame, so building the shell never delays it.
            self.call_after_refresh(self.run_worker, self._build_shell, thread=True, group="boot")

    def _build_shell(self) -> None:
        """Thread worker: build the shell, then hand it to the app's thread."""
        assert self._shell_factory is not None
        try:
            result = self._shell_factory()
            import pi_cli.tui.widgets.turn_panel  # noqa: F401 - warm Markdown for the first turn
        except Exception as exc:  # noqa: BLE001 - a bug; report it instead of hanging on "starting"
            result = f"internal error while starting: {type(exc).__name__}: {exc}"
        self.call_from_thread(self._shell_ready, result)

    async def _shell_ready(self, result: CodingAgent | str) -> None:
        if isinstance(result, str):
            self.startup_error = result
            self.exit(2, return_code=2)
            return
        self._attach(result)
        self.query_one(StartupHeader).show(*self._header_parts())
        await self._show_history()
        self.refresh_status()
        self._drain_pending()

    async def _show_history(self) -> None:
        """Draw the conversation the shell was built with (``pi -c``, ``--session``)."""
        assert self.shell is not None
        await self.transcript.history(list(self.shell.agent.state.messages))

    def _short_path(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.cwd))
        except ValueError:
            return home_relative(path)

    def _command_candidates(self, prefix: str) -> list[tuple[str, str]]:
        if self.shell is None:
            return []
        return [(c.name, c.description) for c in self.shell.commands.complete(prefix)]

    # ------------------------------------------------------------------ status

    def status(self) -> Status:
        """What the footer shows now."""
        shell = self.shell
        if shell is None:
            return Status(cwd=self._cwd_label(), session="…", model="starting…", thinking="")
        usage = shell.usage
        used, window = shell.context_usage()
        cwd = self._cwd_label()
        session = self.options.session_label or shell.session.session_id[:8]
        return Status(
            cwd=cwd,
            session=session,
            model=shell.model_id,
            thinking=shell.thinking,
            input=usage.input,
            output=usage.output,
            cache_read=usage.cache_read,
            cache_write=usage.cache_write,
            cost=usage.cost,
            context_tokens=used,
            context_window=window,
        )

    def _cwd_label(self) -> str:
        return self.options.cwd_label or home_relative(self.cwd)

    def refresh_status(self) -> None:
        """Refresh footer and queue view from the shell."""
        self.footer.show(self.status())
        self.refresh_queue()

    def refresh_queue(self) -> None:
        """Show what is still queued."""
        pending = list(self._pending_inputs)
        if self.shell is None:
            self.queue_view.show_queues([], pending)
            return
        state = self.shell.agent.state
        self.queue_view.show_queues(
            [q.text for q in state.steering_queue],
            [*(q.text for q in state.follow_up_queue), *pending],
        )

    @property
    def is_live(self) -> bool:
        """A run (or a command) is in progress."""
        return self._busy or (self.shell is not None and self.shell.is_streaming)

    @property
    def is_settled(self) -> bool:
        """No run is live and every run's events have been rendered (tests, benchmarks)."""
        return (
            self.bridge is not None
            and not self.is_live
            and self.runs_rendered == self.bridge.runs_ended
        )

    # ------------------------------------------------------------------ input

    @property
    def _model_run_live(self) -> bool:
        """The agent loop runs, so its queues are drained (not so during compaction or commands)."""
        return self.shell is not None and self.shell.agent.state.is_streaming

    def _keep_pending(self, text: str) -> None:
        self._pending_inputs.append(text)
        self.refresh_queue()

    @on(Editor.Submitted)
    def _submitted(self, event: Editor.Submitted) -> None:
        text = event.text
        if not text.strip():
            return
        if self.shell is None:  # still starting: keep it, send it when the shell is ready
            self._keep_pending(text)
            return
        if self.is_live:
            if self._is_command(text):  # /help, /session... run now; the shell refuses the rest
                self.run_command_while_live(text)
            elif self._model_run_live:
                self.shell.steer(text)
                self.refresh_queue()
            else:  # nobody would drain the agent's steer queue before the user's next prompt
                self._keep_pending(text)
            return
        self._start(text)

    def _start(self, text: str) -> None:
        """Hand one input to the shell in the agent worker (the shell is idle)."""
        self._busy = True
        self.editor.live = True
        self.run_input(text)

    def _drain_pending(self) -> None:
        """Submit the next kept input once the shell is idle (commands run as commands)."""
        if self.shell is None or self.is_live:
            return
        # Anything still in the agent's queues arrived too late for the run that just ended
        # (it stopped, failed or compacted meanwhile): keep it in order instead of leaving it
        # to be delivered after the user's next prompt.
        if self.shell.agent.state.error:
            # The run failed: sending what is queued would likely fail the same way (a bad key,
            # an outage). Give everything back to the editor instead.
            self._restore_queues()
            return
        steering, follow_ups = self.shell.agent.clear_queues()
        self._pending_inputs[:0] = [q.text for q in [*steering, *follow_ups]]
        if self._pending_inputs:
            self._start(self._pending_inputs.pop(0))
        self.refresh_queue()

    def _is_command(self, text: str) -> bool:
        from pi_cli.shell.slash_commands import parse_command_line

        parsed = parse_command_line(text)
        return (
            parsed is not None
            and self.shell is not None
            and self.shell.commands.get(parsed[0]) is not None
        )

    async def _submit_and_show(self, text: str) -> None:
        """``shell.submit(text)``, then show the command's result; an exception becomes a notice
        (a worker that raises would end the app)."""
        assert self.shell is not None
        try:
            result = await self.shell.submit(text)
            if result is not None:
                await self._command_result(result)
        except Exception as exc:  # noqa: BLE001 - keep the app alive, show the reason
            await self.transcript.notice(clean(f"{type(exc).__name__}: {exc}"), "error")

    @work(group="command")
    async def run_command_while_live(self, text: str) -> None:
        """A slash command typed during a run (its own worker group: the run keeps going)."""
        await self._submit_and_show(text)

    @on(Editor.FollowUpRequested)
    def _follow_up(self, event: Editor.FollowUpRequested) -> None:
        if not event.text.strip():
            return
        if self.shell is None or not self.is_live:  # nothing to follow: send it now
            self._submitted(Editor.Submitted(event.text))
        elif self._model_run_live:
            self.shell.follow_up(event.text)
            self.refresh_queue()
        else:
            self._keep_pending(event.text)

    @on(Editor.EscapePressed)
    def _escape(self) -> None:
        if not self.is_live:
            return
        self._restore_queues()
        if self.shell is not None and self.shell.is_streaming:
            self.shell.abort()

    @on(Editor.DequeueRequested)
    def _dequeue(self) -> None:
        self._restore_queues()

    def _restore_queues(self) -> None:
        """Move every queued text (agent queues, then the app's own) back into the editor."""
        texts: list[str] = []
        if self.shell is not None:
            steering, follow_ups = self.shell.agent.clear_queues()
            texts = [q.text for q in [*steering, *follow_ups]]
        texts += self._pending_inputs
        self._pending_inputs = []
        if texts:
            current = self.editor.text
            self.editor.set_text("\n".join([*texts, current] if current.strip() else texts))
        self.refresh_queue()

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
        if self.shell is not None and self.shell.is_streaming:
            self.shell.abort()
        self.exit(0)

    def action_toggle_tools(self) -> None:
        """Ctrl+O: hide or show tool output everywhere."""
        self.transcript.toggle_class("-hide-tool-output")

    def action_toggle_thinking(self) -> None:
        """Ctrl+T: hide or show thinking blocks."""
        self.transcript.toggle_class("-hide-thinking")

    # ------------------------------------------------------------------ runs

    @work(exclusive=True, group="agent")
    async def run_input(self, text: str) -> None:
        """Send one input to the shell (a command or a prompt run to its end)."""
        try:
            await self._submit_and_show(text)
        finally:
            self._busy = False
            self.editor.live = False
        self.refresh_status()
        # Not from inside this worker: a new run_input would cancel it (exclusive group).
        self.call_later(self._drain_pending)

    async def _command_result(self, result: CommandResult) -> None:
        if result.quit:
            self.action_quit_app()
            return
        if result.action == "pick_model":
            self._pick_model()
        elif result.action == "pick_session":
            self._pick_session()
        elif result.action == "pick_theme":
            self._pick_theme()
        elif result.action == "pick_tree":
            self._pick_tree()
        elif result.output:
            await self.transcript.notice(clean(result.output), "error" if result.error else "info")

    # ------------------------------------------------------------------ bridge messages

    def on_run_started(self, message: m.RunStarted) -> None:
        # Not simply True: RunStarted can be handled after run_input has already ended.
        self.editor.live = self.is_live

    async def on_run_ended(self, message: m.RunEnded) -> None:
        await self.transcript.close_open_turn()  # a crashed loop never sent turn_end
        if message.error:
            await self.transcript.notice(f"Run failed: {message.error}", "error")
        self.refresh_status()
        self.runs_rendered += 1

    async def on_turn_started(self, message: m.TurnStarted) -> None:
        await self.transcript.start_turn()

    async def on_turn_ended(self, message: m.TurnEnded) -> None:
        await self.transcript.end_turn(message.tools, message.input_tokens, message.output_tokens)
        self.refresh_status()

    async def on_user_message_shown(self, message: m.UserMessageShown) -> None:
        await self.transcript.user_message(message.text, message.injected)
        self.refresh_queue()

    async def on_assistant_text(self, message: m.AssistantText) -> None:
        message.taken = True  # before any await: later deltas need a new message
        await self.transcript.text(message.index, message.delta)

    async def on_assistant_thinking(self, message: m.AssistantThinking) -> None:
        message.taken = True
        await self.transcript.thinking(message.index, message.delta)

    async def on_assistant_ended(self, message: m.AssistantEnded) -> None:
        await self.transcript.assistant_ended(message.stop_reason, message.error)

    async def on_tool_started(self, message: m.ToolStarted) -> None:
        await self.transcript.tool_started(message.call_id, message.name, message.args)

    async def on_tool_progress(self, message: m.ToolProgress) -> None:
        await self.transcript.tool_progress(message.call_id, message.text)

    async def on_tool_finished(self, message: m.ToolFinished) -> None:
        await self.transcript.tool_finished(
            message.call_id, message.name, message.text, message.is_error, message.details
        )

    async def on_notice_shown(self, message: m.NoticeShown) -> None:
        await self.transcript.notice(message.text, message.level)

    async def on_status_changed(self, message: m.StatusChanged) -> None:
        self.refresh_status()

    async def on_session_switched(self, message: m.SessionSwitched) -> None:
        await self.transcript.reset()
        await self.transcript.notice(
            f"Session {self.shell.session.session_id[:8]} ({message.reason})."
        )
        await self.transcript.history(list(self.shell.agent.state.messages))
        self.refresh_status()
