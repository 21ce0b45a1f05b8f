"""The CodingAgent: the shell every front end drives (one-shot, JSON, RPC, plain REPL, TUI).

It runs no model and no tool itself: it builds the agent (model, tools, system prompt, session)
and its parts in one place, decides what typed input becomes (:mod:`pi_cli.shell.input_policy`),
persists the session and sends one stream of :data:`~pi_cli.shell.events.ShellEvent` to all.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING

from agent_core import Agent, AgentEnd, ImageContent, Message, Tool
from pi_cli.shell.agent_tools import AgentTools
from pi_cli.shell.bash.user import UserBash
from pi_cli.shell.code_intelligence import LspDoor, attach_lsp
from pi_cli.shell.commands import CommandResult, SlashCommand, SlashCommandRegistry
from pi_cli.shell.compaction import CompactionError, CompactionResult, Compactor
from pi_cli.shell.config.settings import Settings
from pi_cli.shell.controls import ShellControls
from pi_cli.shell.dialogs import DialogBroker
from pi_cli.shell.events import (
    Listener,
    Notice,
    QueueChanged,
    SessionReason,
    ShellEvent,
    ShellState,
)
from pi_cli.shell.events.bus import EventBus
from pi_cli.shell.extension_setup import attach_extensions, extension_models
from pi_cli.shell.features import (
    attach_plugins,
    attach_session_parts,
    attach_telemetry,
    register_commands,
)
from pi_cli.shell.hooks.lifecycle import run_session_end
from pi_cli.shell.input_policy import InputPolicy, Intent
from pi_cli.shell.input_queue import InputQueue, QueuedInput
from pi_cli.shell.mcp import McpManager, setup_mcp
from pi_cli.shell.models.served import ServedSource, resolver_sources
from pi_cli.shell.models.setup import ConfigError, ModelResolver, StreamFnPool, startup_spec
from pi_cli.shell.models.switching import (
    context_window_of,
    resolve_into,
    switch_model,
    switch_thinking,
)
from pi_cli.shell.models.usage import SessionUsage, UsageCounter
from pi_cli.shell.options import ShellOptions
from pi_cli.shell.permissions import PermissionControl
from pi_cli.shell.prompt.sources import PromptSources
from pi_cli.shell.prompt.system import shell_system_prompt
from pi_cli.shell.run_start import RunPreparer, prepared_run
from pi_cli.shell.safety import Safety
from pi_cli.shell.sandbox_setup import tools_and_sandbox
from pi_cli.shell.schedules import attach_schedules
from pi_cli.shell.session.bash_messages import BashResult
from pi_cli.shell.session.branching import TreeEntry, fork, navigate_to, tree_entries
from pi_cli.shell.session.load import adopt, open_startup_session, switch_to
from pi_cli.shell.session.record import StreamRecorder
from pi_cli.shell.session.store import SessionError, SessionStore, flush_syncs
from pi_cli.shell.tool_info import describe_call

if TYPE_CHECKING:
    from agent_core.providers import ResolvedModel
    from pi_cli.shell.reloading import Reloader

__all__ = ["CodingAgent", "ConfigError", "ShellOptions"]
log = logging.getLogger("pi_cli")


class CodingAgent:
    """The shell around one :class:`agent_core.Agent`."""

    _mcp: McpManager | None = None  # None only while the shell is built (a part may subscribe)
    permissions: PermissionControl  # built after the gate, which reads its mode only later
    remote = False  # lives here: a front end quitting ends its run (see shell.front.FrontShell)

    def __init__(self, options: ShellOptions) -> None:
        self.options, self.cwd = options, options.cwd.resolve()
        self._usage_counter = UsageCounter()  # the footer's numbers, each message counted once
        self.events = EventBus()  # start-up notices reach later listeners; after_emit: the policy
        self.notify = self.events.notify
        self.safety = Safety(options, self.cwd, self.notify)  # trust, settings, keys
        self.settings: Settings = self.safety.settings
        self.dialogs = DialogBroker.of(self.emit, options.approvals, self.settings)
        self.stream_fns = StreamFnPool()
        self.thinking: str = options.thinking or self.settings.thinking
        self.models = ModelResolver(options, self.settings, self.safety.provider_env, self.notify)
        self.models.fallback = extension_models(self)  # --model <an extension's provider>/...
        self.resolved_model: ResolvedModel | None = None
        self.model_id = ""
        stream_fn = resolve_into(self, startup_spec(options))
        self.agent_tools = AgentTools(self, self.models, self.safety.trusted)  # task, todo...
        self.tools, self.sandbox = tools_and_sandbox(
            self, self.safety.tools_env(), self.agent_tools.services()
        )
        self.sources = PromptSources.of(self)  # context files, rules, skills, templates
        self.queue = InputQueue(
            self.settings.steering_mode, self.settings.follow_up_mode,
            lambda items: self.emit(QueueChanged(items=[item.wire() for item in items])),
        )  # fmt: skip
        self.agent = Agent(
            stream_fn,
            model=self.model_id,
            tools=self.tools,
            thinking=self.thinking,
            tool_execution=self.settings.tool_execution,
            get_steering_messages=self.queue.drain_steering,
            get_follow_up_messages=self.queue.drain_follow_ups,
        )
        self.controls = ShellControls(self, self.models)
        self.user_bash = UserBash(self)
        self.models.identify(self.agent, self.resolved_model)
        self.agent.on_retry, self.agent.on_retry_end = self.controls.retry_callbacks()
        self.agent.subscribe(self._on_agent_event)
        self.commands = SlashCommandRegistry()
        self.compactor = Compactor(self)
        self.policy = InputPolicy(self.queue, self.commands, self, self.events.fan_out)
        self.events.after_emit = self.policy.update
        self.session: SessionStore = open_startup_session(self)
        self.recorder = StreamRecorder(lambda: self.session)
        self.sandbox_active: Callable[[], bool] = lambda: self.sandbox.active
        self.hooks, self.gate = self.safety.wire(self, lambda: self.permissions.mode)
        self.permissions = PermissionControl(self.gate, self.emit)
        self.sandbox.prestart()  # the process helper starts while the rest of pi does
        self.agent_tools.attach()
        self.input_transforms = self.hooks.input_transforms()  # goals, checkpoints add theirs
        self.run_preparers: list[RunPreparer] = []  # before_agent_start (extensions)
        register_commands(self.commands, self.sources)
        self.reloaders: list[Reloader] = []  # /reload re-reads these too (plugins)
        self.plugins = attach_plugins(self)  # Claude Code plugins: before MCP, which runs theirs
        self.extensions = attach_extensions(self, self.models, self.safety.trusted)
        self._mcp = setup_mcp(self)  # servers start now, on their own thread
        self.checkpoints, self.durable_queue, self.goals, self.memory = attach_session_parts(self)
        self.schedules = attach_schedules(self)  # /loop, schedule_*; fires once subscribed
        self.telemetry = attach_telemetry(self)  # None unless telemetry is enabled
        self.lsp: LspDoor = attach_lsp(self, lambda: self.plugins)  # after the checkpoints
        for problem in self.sources.problems:
            self.notify(problem, "warning")
        self.rebuild_system_prompt()
        self.hooks.session_start()
        self.events.started()

    def rebuild_system_prompt(self) -> None:
        """Recompute the system prompt (after tools, context files or skills change)."""
        self.agent.system_prompt = shell_system_prompt(
            self.cwd, self.options, self.tools, self.sources.context_files, self.sources.skills,
            self.events.warn_once, self.agent_tools.system_prompt_parts(),
        )  # fmt: skip

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Receive every :data:`ShellEvent` (start-up notices first). Returns an unsubscribe."""
        if self._mcp is not None:  # a front end subscribes on its loop: MCP news reach it now
            self._mcp.bind_loop()
        for part in (getattr(self, "extensions", None), getattr(self, "schedules", None)):
            if part is not None:  # built: start them (extensions, the schedules' timer)
                part.begin()
        return self.events.subscribe(listener)

    @property
    def mcp(self) -> McpManager:
        """The MCP servers of this shell (tools, prompts, their state for a footer)."""
        assert self._mcp is not None, "the shell is still being built"
        return self._mcp

    def emit(self, event: ShellEvent) -> None:
        """Send an event to every listener."""
        self.events.emit(event)

    @property
    def startup_notices(self) -> list[Notice]:
        """The notices raised while the shell was built (bad skills, hooks, sessions...)."""
        return self.events.startup_notices

    def _on_agent_event(self, event: ShellEvent) -> None:
        try:
            self.recorder.on_event(event)  # finished messages, and answers as they stream
        except Exception:  # the event must reach the front end regardless
            log.exception("session append failed")
        self.policy.on_agent_event(event)
        self.emit(event)
        if isinstance(event, AgentEnd):  # commands the user ran meanwhile join the context now
            self.user_bash.flush()
        self.events.report_session(self.session)

    # ------------------------------------------------------------------ input

    @property
    def state(self) -> ShellState:
        """What the shell is doing (see :data:`~pi_cli.shell.events.ShellState`)."""
        return self.policy.state

    @property
    def busy(self) -> bool:
        """An input is being handled: its hooks, a run, a command, compaction. Esc aborts it."""
        return self.policy.busy

    @property
    def streaming(self) -> bool:
        """A model run is live or starting for the input being handled (pi's ``isStreaming``)."""
        return self.policy.streaming

    @property
    def run_aborted(self) -> bool:
        """The input being handled was aborted."""
        return self.policy.run_aborted

    def ensure_idle(self, what: str) -> None:
        """Raise :class:`SessionError` if busy with anything but the command calling this."""
        if self.policy.busy_elsewhere():
            raise SessionError(f"Cannot {what} while the agent is running (abort it first)")
        self.checkpoints.flush()  # a run that just ended: its snapshot first

    def submit(
        self, text: str, intent: Intent = "auto", images: list[ImageContent] | None = None
    ) -> asyncio.Future[CommandResult | None]:
        """The one way input enters pi; decided now (see :mod:`pi_cli.shell.input_policy`).

        Await the result (the command's, ``None`` for a prompt) to wait until it was handled.
        """
        # A lone surrogate (pasted, or "\ud800" from RPC JSON) cannot be saved or sent as UTF-8.
        text = text.encode("utf-8", "replace").decode("utf-8")
        return self.policy.submit(text, intent, images)

    async def wait_idle(self) -> None:
        """Wait until every input (held ones included) has been handled."""
        await self.policy.wait_idle()

    async def run_user_bash(self, command: str, include_in_context: bool = True) -> BashResult:
        """The user's own command (``!cmd``, ``!!cmd``, RPC ``bash``): see :mod:`~.user_bash`."""
        return await self.user_bash.run(command, include_in_context)

    async def handle_input(self, text: str, images: list[ImageContent]) -> CommandResult | None:
        """One input, while the policy holds the shell busy: hooks, then a command or a run."""
        self.user_bash.flush()
        signal = self.policy.signal
        for transform in self.input_transforms:
            transformed = await transform(text)
            if transformed is None:
                return CommandResult()
            text = transformed
        if signal is not None and signal.aborted:  # Esc while the input hooks ran
            self.notify("Aborted before the run started.")
            return CommandResult()
        found = self.commands.lookup(text)
        if found is None:
            await self._prompt(text, images)
            return None
        command, args = found
        self.policy.set_activity("command")
        result = await command.handler(self, args)
        if result.prompt is not None:
            async with result.run_scope() if result.run_scope else nullcontext():
                await self._prompt(result.prompt, images)  # a command file's grants hold
        return result

    async def run_command(self, command: SlashCommand, args: str) -> CommandResult:
        """A ``while_running`` command typed while busy (the policy runs it at once)."""
        return await command.handler(self, args)

    @property
    def is_compacting(self) -> bool:
        """A compaction is running."""
        return self.compactor.is_compacting

    async def _prompt(self, text: str, images: list[ImageContent]) -> None:
        """Run the model on ``text`` to the end of the run, then compact if needed."""
        if self.run_aborted:
            return
        self.agent_tools.start_run()  # budgets count from here
        async with prepared_run(self.agent, self.run_preparers, text, images) as prompts:
            if self.run_aborted:  # Esc while extensions prepared the run
                return
            await self.agent.prompt(prompts)
        await self.agent_tools.after_run(self.hooks)  # Stop hooks, then --output-schema
        await self.goals.pursue()  # a goal being pursued: decide, and more rounds until it holds
        await self.checkpoints.settle()  # the run's snapshot is in before the shell is idle
        if self.run_aborted:  # an aborted run is not followed by compaction
            return
        await self.compactor.after_run()

    def queued(self) -> list[QueuedInput]:
        """What is queued, in delivery order (steers, follow-ups, held inputs)."""
        return self.queue.items()

    def take_queued(self) -> list[QueuedInput]:
        """Take what the user queued back (Esc / Alt+Up put it into the editor)."""
        return self.queue.take_typed()

    def abort(self) -> None:
        """Abort the input hooks, the run or a compaction; what is queued is handed back."""
        self.policy.abort()
        self.agent.abort()
        self.compactor.abort()

    @property
    def messages(self) -> Sequence[Message]:
        """The conversation the model sees (read-only view)."""
        return tuple(self.agent.state.messages)

    async def compact(self, instructions: str | None = None) -> CompactionResult:
        """Summarise older messages now (``/compact``, RPC ``compact``); raises ``CompactionError``."""
        if self.policy.busy_elsewhere():
            raise CompactionError("Cannot compact while the agent is running (abort it first)")
        if self.state == "command":
            return await self.compactor.compact("manual", instructions)
        return await self.policy.begin(
            "compacting", lambda: self.compactor.compact("manual", instructions)
        )

    def tree_entries(self) -> list[TreeEntry]:
        """The session tree for a picker."""
        return tree_entries(self.session)

    def navigate_to(self, entry_id: str) -> str | None:
        """Continue from an earlier entry; returns a selected user message's text for the editor."""
        return navigate_to(self, entry_id)

    def fork(self, entry_id: str | None = None) -> Path:
        """Copy the path to ``entry_id`` (default: leaf) into a new session file and switch to it."""
        return fork(self, entry_id)

    def adopt_session(self, store: SessionStore, reason: SessionReason) -> None:
        """Make ``store`` the session: the conversation comes from it, listeners and hooks learn it."""
        adopt(self, store, reason)

    def new_session(self) -> None:
        """Start a fresh session file and an empty conversation (raises SessionError mid-run)."""
        switch_to(self, None)

    def switch_session(self, ref: str | Path) -> None:
        """Resume another session (path or id) of this project (raises SessionError mid-run)."""
        switch_to(self, ref)

    def set_model(self, spec: str, *, record: bool = True) -> None:
        """Switch the model (raises :class:`ConfigError` with a user-facing message)."""
        switch_model(self, spec, record)

    def served_sources(self) -> list[ServedSource]:
        """The servers whose ``/models`` the pickers list (``--api-base``, models.json)."""
        return resolver_sources(self.models, self.model_id)

    def set_thinking(self, level: str) -> None:
        """Change the reasoning level for the next requests."""
        switch_thinking(self, level)

    @property
    def usage(self) -> SessionUsage:
        """Token and cost totals of the messages in the current context."""
        return self._usage_counter.usage(self.agent.state.messages)

    @property
    def context_window(self) -> int:
        """The model's context window in tokens (a budget from settings wins if smaller)."""
        return context_window_of(self.resolved_model, self.settings)

    def context_usage(self) -> tuple[int, int]:
        """(tokens in the current context, context window)."""
        return self._usage_counter.context_tokens(self.agent.state.messages), self.context_window

    def replace_tool(self, tool: Tool) -> None:
        """Use ``tool`` instead of the tool of the same name (ACP: edits through the editor)."""
        for tools in (self.tools, self.agent.tools):
            tools[:] = [tool if t.name == tool.name else t for t in tools]

    def describe_call(self, tool_name: str, args: object) -> str:
        """The one-line title of a tool call, as the tool itself words it ("" if unknown)."""
        return describe_call(self.tools, tool_name, args)

    async def aclose(self) -> None:
        """Stop schedules and sub-agents, SessionEnd hooks, stop tools and MCP, flush the session."""
        self.schedules.stop()
        await run_session_end(self.hooks, "other")
        await asyncio.gather(
            self.agent_tools.aclose(),  # first: background sub-agents stop, recorded interrupted
            self.lsp.aclose(),  # the language servers, if any started
            self.checkpoints.aclose(),
            self.sandbox.aclose(),
            self.stream_fns.aclose(self.agent.stream_fn),
            asyncio.to_thread(self.mcp.close),  # servers' process groups are killed
            *([self.extensions.aclose()] if self.extensions is not None else []),
        )
        if self.telemetry is not None:  # the last spans and metrics are sent
            await asyncio.to_thread(self.telemetry.shutdown)
        await asyncio.to_thread(flush_syncs)

    def answer(self, request_id: str, answer: object) -> bool:
        """Answer a permission or dialog request (False: not pending; ValueError: unfit)."""
        if self.dialogs.knows(request_id):
            return self.dialogs.answer(request_id, answer)
        return self.permissions.answer(request_id, answer)
