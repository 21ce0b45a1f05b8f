"""Hooks: Python modules (:mod:`.python_hooks`) plus command hooks (:mod:`.command_hooks`).

A Python hook module defines any of these functions (sync or async), each taking one event:

- ``input(event: InputEvent)`` -> ``None`` (unchanged) | ``str`` (replacement text) |
  ``{"handled": True, "output": "..."}`` (consumed; nothing goes to the model).
- ``tool_call(event: ToolCallEvent)`` -> ``None`` | ``{"block": True, "reason": "..."}`` |
  ``{"arguments": {...}}`` (rewrite the call).
- ``tool_result(event: ToolResultEvent)`` -> ``None`` | a dict with any of ``content`` (text or
  content blocks), ``details``, ``is_error``.
- ``turn_end(event)``, ``agent_end(event)`` (the agent_core events) and
  ``session_start(event: SessionStartEvent)``: notifications, return value ignored.

A ``tool_call`` hook that raises blocks the call (fail safe); any hook error is shown to the
user and the session goes on. Command hooks get Claude Code's tool names and input fields
(:mod:`.claude_names`); lifecycle events (Stop, SessionStart...) are in :mod:`.lifecycle_hooks`.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core import AbortSignal, AgentEnd, TurnEnd, to_wire
from agent_core.tool import (
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCallResult,
    ToolCallContext,
)
from pi_cli.shell.config.claude_names import (
    claude_tool_name,
    from_claude_input,
    names_of,
    to_claude_input,
)
from pi_cli.shell.hooks._command import (
    EVENTS,
    CommandHook,
    HookOutcome,
    parse_hooks,
    run_command_hook,
)
from pi_cli.shell.hooks._python import (
    InputEvent,
    PythonHook,
    SessionStartEvent,
    ToolCallEvent,
    ToolResultEvent,
    call_hook,
    load_python_hooks,
)
from pi_cli.shell.hooks.in_process import PreToolUse, ToolStage, in_process_after, in_process_before

if TYPE_CHECKING:
    from agent_core import Agent
    from pi_cli.shell.context import ShellContext

__all__ = [
    "EVENTS",
    "CommandHook",
    "HookManager",
    "InputEvent",
    "PreToolUse",
    "SessionStartEvent",
    "ToolCallEvent",
    "ToolResultEvent",
    "parse_hooks",
]
log = logging.getLogger("pi_cli.hooks")


class HookManager:
    """Dispatches events to Python and command hooks for one shell.

    Args:
        env: the environment command hooks run with (the tools' environment: no keys).
        mode: the current permission mode (``permission_mode`` in the payloads).
    """

    def __init__(
        self,
        shell: ShellContext,
        python_hooks: list[PythonHook],
        command_hooks: list[CommandHook],
        env: Callable[[], Mapping[str, str]] | None = None,
        mode: Callable[[], str] = lambda: "default",
    ) -> None:
        self.shell = shell
        self.python_hooks = python_hooks
        self.command_hooks = command_hooks
        self.env = env
        self.mode = mode
        self._tasks: set[asyncio.Task[Any]] = set()
        self.pending_context: list[str] = []
        """additionalContext of SessionStart hooks, added to the next prompt."""
        self.start_source = "startup"
        """SessionStart's ``source`` for the next session start: startup, resume, clear."""
        self.session_start_due = False
        self.in_process: ToolStage | None = None
        """The extensions' tool hooks, run before the others (set when extensions attach)."""

    @classmethod
    def load(
        cls,
        shell: ShellContext,
        *,
        include_project: bool = True,
        config: dict[str, Any] | None = None,
        env: Callable[[], Mapping[str, str]] | None = None,
        mode: Callable[[], str] = lambda: "default",
    ) -> HookManager:
        """Load the Python hook modules and the command hooks (``config``: the hooks setting)."""
        python_hooks, problems = load_python_hooks(shell.cwd, include_project)
        hooks_config = shell.settings.hooks if config is None else config
        command_hooks, config_problems = parse_hooks(hooks_config or {})
        for problem in problems + config_problems:
            shell.notify(problem, "warning")
        return cls(shell, python_hooks, command_hooks, env, mode)

    @property
    def active(self) -> bool:
        """Any hook is configured (an extension's included)."""
        stage = self.in_process
        return bool(self.python_hooks or self.command_hooks or (stage and stage.active))

    def input_transforms(self) -> list[Callable[[str], Awaitable[str | None]]]:
        """The shell's input transforms these hooks provide."""
        return [self.transform_input] if self.active else []

    def attach(self, agent: Agent) -> None:
        """Follow ``agent``'s events (turn_end, agent_end) if any Python hook is configured.

        The tool-call hooks are chained by the shell's permission gate, which calls
        :meth:`pre_tool_use` and :meth:`after_tool_call`.
        """
        if self.python_hooks:
            agent.subscribe(self.on_event)

    def functions(self, name: str) -> list[tuple[Path, Any]]:
        """(file, function) of every Python hook defining ``name``."""
        return [(h.path, h.functions[name]) for h in self.python_hooks if name in h.functions]

    def commands(self, event: str, names: str | tuple[str, ...] | None = None) -> list[CommandHook]:
        """The command hooks for ``event`` whose matcher matches one of ``names``."""
        return [h for h in self.command_hooks if h.event == event and h.matches(names)]

    async def run(self, hook: CommandHook, payload: dict[str, Any]) -> HookOutcome:
        """Run one command hook; its problems and system messages are shown to the user."""
        env = self.env() if self.env is not None else None
        outcome = await run_command_hook(hook, payload, self.shell.cwd, env)
        if outcome.problem:
            self.shell.notify(outcome.problem, "warning")
        if outcome.system_message:
            self.shell.notify(outcome.system_message)
        return outcome

    def report(self, path: Path | str, name: str, exc: BaseException) -> str:
        """Show a failing Python hook; returns the text."""
        text = f"Hook {path} ({name}) failed: {type(exc).__name__}: {exc}"
        self.shell.notify(text, "error")
        return text

    # ------------------------------------------------------------------ input

    async def transform_input(self, text: str) -> str | None:
        """An ``input_transforms`` entry: ``None`` when a hook consumed the input."""
        from pi_cli.shell.hooks.lifecycle import run_session_start

        await run_session_start(self)
        for path, function in self.functions("input"):
            try:
                result = await call_hook(function, InputEvent(text, self.shell.cwd, self.shell))
            except Exception as exc:  # noqa: BLE001 - shown, input goes on unchanged
                self.report(path, "input", exc)
                continue
            if isinstance(result, str):
                text = result
            elif isinstance(result, dict) and result.get("handled"):
                if result.get("output"):
                    self.shell.notify(str(result["output"]))
                return None
        for hook in self.commands("UserPromptSubmit"):
            outcome = await self.run(hook, self.payload("UserPromptSubmit", prompt=text))
            if outcome.block:
                self.shell.notify(f"Prompt blocked by hook: {outcome.message}", "warning")
                return None
            if outcome.additional_context:
                text = f"{text}\n\n{outcome.additional_context}"
            elif outcome.stdout and not outcome.data:
                text = f"{text}\n\n{outcome.stdout}"  # Claude Code: stdout is added as context
        if self.pending_context:
            text = "\n\n".join([text, *self.pending_context])
            self.pending_context.clear()
        return text

    # ------------------------------------------------------------------ tools

    async def pre_tool_use(self, tool: str, call_id: str, args: dict[str, Any]) -> PreToolUse:
        """Python ``tool_call`` hooks, then PreToolUse commands (Claude Code's names)."""
        stage = PreToolUse(dict(args))
        if await in_process_before(self.in_process, stage, tool, call_id):
            return stage  # an extension blocked or answered the call
        if await self._python_tool_call(stage, tool, call_id):
            return stage
        for hook in self.commands("PreToolUse", names_of(tool, stage.args)):
            outcome = await self.run(
                hook, self.tool_payload("PreToolUse", tool, call_id, stage.args)
            )
            if outcome.block:
                stage.block, stage.reason = True, outcome.message
                return stage
            if outcome.updated_input is not None:
                stage.args = from_claude_input(tool, outcome.updated_input, stage.args)
                stage.rewritten = True
            if outcome.decision == "ask" or (
                outcome.decision == "allow" and stage.decision is None
            ):
                stage.decision = outcome.decision  # type: ignore[assignment]
                stage.reason = outcome.message
            if outcome.additional_context:
                stage.context = "\n".join(filter(None, [stage.context, outcome.additional_context]))
        return stage

    async def _python_tool_call(self, stage: PreToolUse, tool: str, call_id: str) -> bool:
        """Python ``tool_call`` hooks into ``stage``; True when one blocked the call."""
        for path, function in self.functions("tool_call"):
            event = ToolCallEvent(tool, call_id, dict(stage.args), self.shell.cwd, self.shell)
            try:
                result = await call_hook(function, event)
            except Exception as exc:  # noqa: BLE001 - fail safe: block and say why
                stage.block = True
                stage.reason = f"Tool call blocked: {self.report(path, 'tool_call', exc)}"
                return True
            if isinstance(result, BeforeToolCallResult):
                result = {
                    "block": result.block,
                    "reason": result.reason,
                    "arguments": result.arguments,
                }
            if isinstance(result, dict):
                if result.get("block"):
                    stage.block = True
                    stage.reason = str(result.get("reason") or f"Blocked by hook {path.name}")
                    return True
                if isinstance(result.get("arguments"), dict):
                    stage.args, stage.rewritten = dict(result["arguments"]), True
        return False

    async def before_tool_call(
        self, ctx: ToolCallContext, signal: AbortSignal
    ) -> BeforeToolCallResult | None:
        """The PreToolUse stage as an agent ``before_tool_call`` (no permission checks)."""
        call = ctx.tool_call
        stage = await self.pre_tool_use(call.name, call.id, dict(call.arguments))
        if stage.block:
            return BeforeToolCallResult(block=True, reason=stage.reason)
        return BeforeToolCallResult(arguments=stage.args) if stage.rewritten else None

    async def permission_request(
        self, tool: str, call_id: str, args: dict[str, Any], suggestions: list[str]
    ) -> HookOutcome | None:
        """PermissionRequest hooks: the first that allows or denies decides (None: none did)."""
        for hook in self.commands("PermissionRequest", names_of(tool, args)):
            payload = self.tool_payload("PermissionRequest", tool, call_id, args)
            payload["permission_suggestions"] = suggestions
            outcome = await self.run(hook, payload)
            if outcome.block or outcome.decision in ("allow", "deny"):
                if outcome.updated_input is not None:
                    outcome.updated_input = from_claude_input(tool, outcome.updated_input, args)
                return outcome
        return None

    async def after_tool_call(
        self, ctx: AfterToolCallContext, signal: AbortSignal
    ) -> AfterToolCallResult | None:
        """Python ``tool_result`` hooks patch, then PostToolUse commands."""
        call = ctx.tool_call
        result, is_error = ctx.result, ctx.is_error
        patched = await in_process_after(self.in_process, call, result, is_error)
        changed = patched is not None
        if patched is not None:
            result, is_error = patched
        for path, function in self.functions("tool_result"):
            event = ToolResultEvent(
                call.name, call.id, dict(call.arguments), result.text, result, is_error,
                self.shell.cwd, self.shell,
            )  # fmt: skip
            try:
                patch = await call_hook(function, event)
            except Exception as exc:  # noqa: BLE001 - shown; the result stays as it was
                self.report(path, "tool_result", exc)
                continue
            if isinstance(patch, dict) and patch:
                override = AfterToolCallResult()
                if "content" in patch:
                    override.content = patch["content"]
                if "details" in patch:
                    override.details = patch["details"]
                if "is_error" in patch or "isError" in patch:
                    override.is_error = patch.get("is_error", patch.get("isError"))
                result, is_error = override.apply(result, is_error)
                changed = True
        args = dict(call.arguments)
        for hook in self.commands("PostToolUse", names_of(call.name, args)):
            payload = self.tool_payload("PostToolUse", call.name, call.id, args)
            payload["tool_response"] = {**to_wire(result), "isError": is_error}
            outcome = await self.run(hook, payload)
            note = outcome.message if outcome.block else outcome.additional_context
            if note:
                # The tool already ran: the hook's message is added for the model to read.
                text = f"{result.text}\n\n[PostToolUse hook] {note}".strip()
                result, is_error = AfterToolCallResult(
                    content=text, is_error=is_error or outcome.block
                ).apply(result, is_error)
                changed = True
        if not changed:
            return None
        return AfterToolCallResult(
            content=result.content, details=result.details, is_error=is_error
        )

    # ------------------------------------------------------------------ notifications

    def on_event(self, event: Any) -> None:
        """Agent listener: forwards ``turn_end`` and ``agent_end`` to Python hooks."""
        if isinstance(event, TurnEnd):
            self.notify_hooks("turn_end", event)
        elif isinstance(event, AgentEnd):
            self.notify_hooks("agent_end", event)

    def notify_hooks(self, name: str, event: Any) -> None:
        """Call every ``name`` hook; async ones run as tasks (no loop: run to completion)."""
        for path, function in self.functions(name):
            try:
                result = function(event)
            except Exception as exc:  # noqa: BLE001
                self.report(path, name, exc)
                continue
            if inspect.isawaitable(result):
                self.schedule(self._guarded(path, name, result))

    async def _guarded(self, path: Path, name: str, awaitable: Any) -> None:
        try:
            await awaitable
        except Exception as exc:  # noqa: BLE001
            self.report(path, name, exc)

    def schedule(self, coroutine: Any) -> None:
        """Run ``coroutine`` as a task (to completion now when no loop is running)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(coroutine)
            return
        task = loop.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def session_start(self) -> None:
        """Tell hooks which session is active (command hooks run before the next prompt, with
        ``start_source`` as Claude Code's ``source``)."""
        if not self.active:
            return
        self.session_start_due = True
        session = self.shell.session
        event = SessionStartEvent(
            session.session_id,
            str(session.path) if session.path else None,
            self.shell.cwd,
            self.shell,
        )
        self.notify_hooks("session_start", event)

    def payload(self, event: str, **fields: Any) -> dict[str, Any]:
        """The fields every Claude Code hook input has, plus ``fields``."""
        return {
            "hook_event_name": event,
            "session_id": self.shell.session.session_id,
            "transcript_path": str(self.shell.session.path or ""),
            "cwd": str(self.shell.cwd),
            "permission_mode": self.mode(),
            **fields,
        }

    def tool_payload(
        self, event: str, tool: str, call_id: str, args: Mapping[str, Any]
    ) -> dict[str, Any]:
        """A tool event's input: Claude Code's tool name and ``tool_input`` field names."""
        return self.payload(
            event,
            tool_name=claude_tool_name(tool, args),
            tool_input=to_claude_input(tool, args, self.shell.cwd),
            tool_use_id=call_id,
        )
