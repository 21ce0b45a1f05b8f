"""The CodingAgent: builds the agent (model, tools, system prompt, session) for any front end.

It runs no model and no tool itself: it expands slash commands, persists the session, turns
provider retries into events, and calls ``agent.prompt``. Front ends subscribe to one event
stream carrying agent_core events plus the shell events of :mod:`pi_cli.shell.events`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_core import AbortSignal, Agent, AssistantMessage, MessageEnd, RetryNotice, StreamFn
from pi_cli.shell.context_files import ContextFile, load_context_files, read_prompt_override
from pi_cli.shell.events import AutoRetryEnd, AutoRetryStart, ModelChanged, Notice, SessionChanged
from pi_cli.shell.model_setup import ConfigError, ModelResolver
from pi_cli.shell.session_store import (
    SessionError,
    SessionStore,
    find_latest_session,
    resolve_session,
)
from pi_cli.shell.settings import Settings, load_settings
from pi_cli.shell.slash_commands import (
    CommandResult,
    SlashCommandRegistry,
    builtin_commands,
    parse_command_line,
)
from pi_cli.shell.system_prompt import build_system_prompt
from pi_cli.shell.usage import SessionUsage, context_tokens

Listener = Callable[[Any], None]
InputTransform = Callable[[str], Awaitable[str | None]]
log = logging.getLogger("pi_cli")


@dataclass
class ShellOptions:
    """How to build the shell (CLI flags, RPC options, test overrides)."""

    cwd: Path = field(default_factory=Path.cwd)
    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    thinking: str | None = None
    tools: list[str] | None = None
    no_tools: bool = False
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    persist_session: bool = True
    continue_session: bool = False
    session: str | None = None
    skill_paths: list[str] = field(default_factory=list)
    stream_fn: StreamFn | None = None  # tests: bypass provider resolution
    settings: Settings | None = None


class CodingAgent:
    """The shell around one :class:`agent_core.Agent`."""

    def __init__(self, options: ShellOptions) -> None:
        self.options = options
        self.cwd = options.cwd.resolve()
        self.settings = options.settings or load_settings(self.cwd)
        self.commands = SlashCommandRegistry()
        for command in builtin_commands():
            self.commands.register(command)
        self.input_transforms: list[InputTransform] = []
        self._listeners: list[Listener] = []
        # Notices raised while building (bad skills, hooks...) reach listeners that subscribe later.
        self._startup_notices: list[Notice] | None = []
        self.skills: list[Any] = []
        self.skills_block: str | None = None
        self.thinking = options.thinking or self.settings.thinking
        self.resolved_model: Any = None
        self.model_id = ""
        self._models = ModelResolver(options, self.settings)
        # Set while a submitted input is handled (hooks, run, compaction after it): abort()
        # must reach it even before the agent has a run (and so a signal) of its own.
        self._run_signal: AbortSignal | None = None
        self._in_command = False
        self._warned: set[str] = set()
        self._closing: set[asyncio.Task[None]] = set()
        self._retired_stream_fns: list[StreamFn] = []
        stream_fn = self._resolve_model(options.model)
        self.tools = self._create_tools()
        self.context_files: list[ContextFile] = load_context_files(self.cwd)
        self.agent = Agent(
            stream_fn,
            model=self.model_id,
            tools=self.tools,
            thinking=self.thinking,
            tool_execution=self.settings.tool_execution,
            steering_mode=self.settings.steering_mode,
            follow_up_mode=self.settings.follow_up_mode,
        )
        self.agent.on_retry = self._on_retry
        self.agent.on_retry_end = self._on_retry_end
        self.agent.subscribe(self._on_agent_event)
        self.session = self._open_session()
        self.rebuild_system_prompt()
        from pi_cli.shell.extensions import install_extensions

        install_extensions(self)
        self.startup_notices = self._startup_notices or []
        self._startup_notices = None

    # ------------------------------------------------------------------ building

    def _resolve_model(self, spec: str | None) -> StreamFn:
        choice = self._models.resolve(spec)
        self.resolved_model = choice.resolved
        self.model_id = choice.model_id
        return choice.stream_fn

    def _create_tools(self) -> list[Any]:
        if self.options.no_tools:
            return []
        import tools

        names = self.options.tools if self.options.tools is not None else self.settings.tools
        try:
            return tools.create_tools(list(names or tools.DEFAULT_TOOL_NAMES), self.cwd)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None

    def _open_session(self) -> SessionStore:
        persist = self.options.persist_session
        path: Path | None = None
        if self.options.session:
            path = resolve_session(self.options.session, self.cwd)
        elif self.options.continue_session:
            path = find_latest_session(self.cwd)
            if path is None:
                self.notify(
                    "No previous session for this directory; starting a new one.", "warning"
                )
        if path is None:
            return SessionStore.create(self.cwd, persist=persist)
        # --no-session with -c/--session: read the file, never append to it.
        store = SessionStore.open(path, persist=persist)
        self._load_into_agent(store)
        return store

    def _load_into_agent(self, store: SessionStore) -> None:
        # build_context first: it is what finds corrupt entries, and adds their warnings.
        self.agent.replace_messages(store.build_context())
        for warning in store.warnings:
            self.notify(warning, "warning")
        change = store.latest("model_change")
        if change and not self.options.model and self.options.stream_fn is None:
            try:
                self.set_model(str(change["model"]), record=False)
            except ConfigError as exc:
                self.notify(f"Could not restore model {change['model']}: {exc}", "warning")

    def rebuild_system_prompt(self, skills_block: str | None = None) -> None:
        """Recompute the system prompt (after tools, context files or skills change)."""
        if skills_block is None:
            skills_block = self.skills_block
        custom = self.options.system_prompt or read_prompt_override(
            self.cwd, "SYSTEM.md", self._warn_once
        )
        append_parts = [
            read_prompt_override(self.cwd, "APPEND_SYSTEM.md", self._warn_once),
            self.options.append_system_prompt,
        ]
        self.agent.system_prompt = build_system_prompt(
            cwd=self.cwd,
            tools=self.tools,
            context_files=self.context_files,
            custom_prompt=custom,
            append_prompt="\n\n".join(p for p in append_parts if p) or None,
            skills_block=skills_block,
        )

    # ------------------------------------------------------------------ events

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive agent and shell events. Returns an unsubscribe function."""
        self._listeners.append(listener)
        for notice in getattr(self, "startup_notices", []):
            listener(notice)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, event: Any) -> None:
        """Send an event to every listener (a failing listener never breaks the shell)."""
        if self._startup_notices is not None and isinstance(event, Notice):
            self._startup_notices.append(event)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # noqa: BLE001
                import logging

                logging.getLogger("pi_cli").exception("listener failed")

    def notify(self, text: str, level: str = "info") -> None:
        """Emit a :class:`Notice`."""
        self.emit(Notice(text=text, level=level))  # type: ignore[arg-type]

    def _warn_once(self, text: str) -> None:
        """A warning shown once per shell (the system prompt is rebuilt several times)."""
        if text not in self._warned:
            self._warned.add(text)
            self.notify(text, "warning")

    def _check_saved(self) -> None:
        """Tell the user once when the session file could not be written."""
        if self.session.write_error and self.session.write_error not in self._warned:
            self._warned.add(self.session.write_error)
            self.notify(self.session.write_error, "error")

    def _on_agent_event(self, event: Any) -> None:
        try:
            if isinstance(event, MessageEnd):
                self.session.append_message(event.message)
        except Exception:  # noqa: BLE001 - the event must reach the front end regardless
            log.exception("session append failed")
        self.emit(event)
        self._check_saved()

    def _on_retry(self, notice: RetryNotice) -> None:
        self.emit(
            AutoRetryStart(
                attempt=notice.attempt,
                max_attempts=notice.max_attempts,
                delay_ms=int(notice.delay_s * 1000),
                error_message=notice.error_message,
            )
        )

    def _on_retry_end(self, success: bool, attempt: int, final_error: str | None) -> None:
        self.emit(AutoRetryEnd(success=success, attempt=attempt, final_error=final_error))

    # ------------------------------------------------------------------ input

    @property
    def is_streaming(self) -> bool:
        """True while an input is being handled: its input hooks, the run, compaction after it.

        Also true during a compaction (``/compact``, RPC ``compact``). Esc / Ctrl+C abort all of these.
        """
        compactor = getattr(self, "compactor", None)
        return (
            self.agent.state.is_streaming
            or self._run_signal is not None
            or (compactor is not None and compactor.is_compacting)
        )

    def _busy_elsewhere(self) -> bool:
        """A run or compaction is live that is not the command now being handled."""
        compactor = getattr(self, "compactor", None)
        return (
            self.agent.state.is_streaming
            or (compactor is not None and compactor.is_compacting)
            or (self._run_signal is not None and not self._in_command)
        )

    def ensure_idle(self, what: str) -> None:
        """Raise :class:`SessionError` if a run is live (``what``: "fork", "start a new session"...)."""
        if self._busy_elsewhere():
            raise SessionError(f"Cannot {what} while the agent is running (abort it first)")

    async def submit(self, text: str) -> CommandResult | None:
        """Handle one line of user input: a slash command, or a prompt run to the end.

        While a run is live only commands marked ``while_running`` are executed; anything else
        gets an error result (front ends steer or queue plain text themselves).
        """
        # A lone surrogate (pasted, or "\ud800" from RPC JSON) cannot be saved or sent as UTF-8.
        text = text.encode("utf-8", "replace").decode("utf-8")
        if self.is_streaming:
            return await self._submit_while_running(text)
        signal = self._run_signal = AbortSignal()
        try:
            for transform in self.input_transforms:
                transformed = await transform(text)
                if transformed is None:
                    return CommandResult()
                text = transformed
            if signal.aborted:  # Esc / Ctrl+C / RPC abort while the input hooks ran
                return CommandResult()
            parsed = parse_command_line(text)
            if parsed is not None:
                name, args = parsed
                command = self.commands.get(name)
                if command is not None:
                    self._in_command = True
                    try:
                        result = await command.handler(self, args)
                    finally:
                        self._in_command = False
                    if result.prompt is not None:
                        await self.prompt(result.prompt)
                    return result
            await self.prompt(text)
            return None
        finally:
            self._run_signal = None

    async def _submit_while_running(self, text: str) -> CommandResult:
        parsed = parse_command_line(text)
        command = self.commands.get(parsed[0]) if parsed is not None else None
        if command is None:
            return CommandResult(
                output="The agent is running: steer, queue a follow-up or abort it first.",
                error=True,
            )
        if not command.while_running:
            return CommandResult(
                output=f"Cannot run /{command.name} while the agent is running "
                "(wait for the run to end or abort it).",
                error=True,
            )
        assert parsed is not None
        return await command.handler(self, parsed[1])

    async def prompt(self, text: str) -> None:
        """Run the model on ``text`` to the end of the run (compacting after it if needed).

        Returns at once if :meth:`abort` was called since the input was submitted.
        """
        owner = self._run_signal is None
        signal = self._run_signal = self._run_signal or AbortSignal()
        try:
            if signal.aborted:
                return
            await self.agent.prompt(text)
            if signal.aborted:  # an aborted run is not followed by compaction
                return
            await self.compactor.after_run()
        finally:
            if owner:
                self._run_signal = None

    async def compact(self, instructions: str | None = None) -> Any:
        """Summarise older messages now (``/compact``); raises ``CompactionError``."""
        from pi_cli.shell.compaction import CompactionError

        if self._busy_elsewhere():
            raise CompactionError("Cannot compact while the agent is running (abort it first)")
        return await self.compactor.compact("manual", instructions)

    def tree_entries(self) -> list[Any]:
        """The session tree for a picker (:class:`pi_cli.shell.branching.TreeEntry` list)."""
        from pi_cli.shell.branching import tree_entries

        return tree_entries(self.session)

    def navigate_to(self, entry_id: str) -> str | None:
        """Continue from an earlier entry; returns a selected user message's text for the editor."""
        from pi_cli.shell.branching import navigate_to

        return navigate_to(self, entry_id)

    def fork(self, entry_id: str | None = None) -> Path:
        """Copy the path to ``entry_id`` (default: leaf) into a new session file and switch to it."""
        from pi_cli.shell.branching import fork

        return fork(self, entry_id)

    def steer(self, text: str) -> None:
        """Queue a message for the next turn of the live run."""
        self.agent.steer(text)

    def follow_up(self, text: str) -> None:
        """Queue a message for after the live run would stop."""
        self.agent.follow_up(text)

    def abort(self) -> None:
        """Abort whatever is live: input hooks, the run, or a compaction (before or after a run)."""
        if self._run_signal is not None:
            self._run_signal.abort()
        self.agent.abort()
        compactor = getattr(self, "compactor", None)
        if compactor is not None:
            compactor.abort()

    async def aclose(self) -> None:
        """Release the provider clients (HTTP connections); call once at shutdown."""
        fns = [*self._retired_stream_fns, self.agent.stream_fn]
        self._retired_stream_fns.clear()
        for fn in fns:
            await _aclose(fn)
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)

    def _retire(self, old: StreamFn) -> None:
        """Close a replaced stream function: now if a loop runs, else at :meth:`aclose`."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._retired_stream_fns.append(old)
            return
        task = loop.create_task(_aclose(old))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    # ------------------------------------------------------------------ model & session

    def set_model(self, spec: str, *, record: bool = True) -> None:
        """Switch the model (raises :class:`ConfigError` with a user-facing message)."""
        if self._busy_elsewhere():
            raise ConfigError("Cannot change the model while the agent is running (abort it first)")
        stream_fn = self._resolve_model(spec)
        old, self.agent.stream_fn = self.agent.stream_fn, stream_fn
        if old is not stream_fn:
            self._retire(old)
        self.agent.model = self.model_id
        if record:
            self.session.append("model_change", model=self.model_id)
            self._check_saved()
        self.emit(ModelChanged(model=self.model_id, thinking=self.thinking))

    def set_thinking(self, level: str) -> None:
        """Change the reasoning level for the next requests."""
        self.thinking = level
        self.agent.thinking = level
        self.session.append("thinking_level_change", thinkingLevel=level)
        self._check_saved()
        self.emit(ModelChanged(model=self.model_id, thinking=level))

    def new_session(self) -> None:
        """Start a fresh session file and an empty conversation (raises SessionError mid-run)."""
        # A live run's remaining messages would otherwise land in the new file.
        self.ensure_idle("start a new session")
        self.agent.reset()
        self.session = SessionStore.create(self.cwd, persist=self.options.persist_session)
        self.emit(
            SessionChanged(
                session_id=self.session.session_id, path=_str(self.session.path), reason="new"
            )
        )
        self.hooks.session_start()

    def switch_session(self, ref: str | Path) -> None:
        """Resume another session (path or id) of this project (raises SessionError mid-run)."""
        self.ensure_idle("switch sessions")
        path = ref if isinstance(ref, Path) else resolve_session(ref, self.cwd)
        store = SessionStore.open(path, persist=self.options.persist_session)
        self.agent.reset()
        self.session = store
        self._load_into_agent(store)
        self.emit(SessionChanged(session_id=store.session_id, path=str(path), reason="resume"))
        self.hooks.session_start()

    @property
    def usage(self) -> SessionUsage:
        """Token and cost totals of the messages in the current context."""
        return SessionUsage.of(self.agent.state.messages)

    @property
    def context_window(self) -> int:
        """The model's context window in tokens (a budget from settings wins if smaller)."""
        window = int(getattr(self.resolved_model, "context_window", 0) or 128_000)
        budget = self.settings.compaction.context_budget
        return min(window, budget) if budget else window

    def context_usage(self) -> tuple[int, int]:
        """(tokens in the current context, context window)."""
        return context_tokens(self.agent.state.messages), self.context_window

    def session_summary(self) -> str:
        """Text for /session."""
        usage = self.usage
        used, window = self.context_usage()
        messages = self.agent.state.messages
        return "\n".join(
            [
                f"Session: {self.session.session_id}",
                f"File: {self.session.path or '(not saved: --no-session)'}",
                f"Model: {self.model_id} (thinking: {self.thinking})",
                f"Messages: {len(messages)} ({sum(isinstance(m, AssistantMessage) for m in messages)} from the model)",
                f"Tokens: {usage.input} in, {usage.output} out, {usage.cache_read} cache read, {usage.cache_write} cache write",
                f"Cost: ${usage.cost:.4f}",
                f"Context: {used} / {window} tokens ({100 * used / max(window, 1):.0f}%)",
            ]
        )


def _str(path: Path | None) -> str | None:
    return str(path) if path is not None else None


async def _aclose(stream_fn: Any) -> None:
    """Await ``stream_fn.aclose()`` if the provider layer gave it one (closes its HTTP client)."""
    close = getattr(stream_fn, "aclose", None)
    if close is None:
        return
    try:
        await close()
    except Exception:  # noqa: BLE001 - shutting down: a failed close must not mask the exit code
        log.debug("closing the provider client failed", exc_info=True)
