"""Hooks: Python modules from ``$PI_HOME/hooks/`` and ``.pi/hooks/`` plus command hooks.

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
user and the session goes on. Command hooks are described in :mod:`pi_cli.shell.command_hooks`.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import logging
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from agent_core import AbortSignal, AgentEnd, TurnEnd, to_wire
from agent_core.tool import (
    AfterToolCallContext,
    AfterToolCallResult,
    BeforeToolCallResult,
    ToolCallContext,
)
from pi_cli.shell.command_hooks import CommandHook, parse_hooks, run_command_hook
from pi_cli.shell.paths import pi_home, project_dir

if TYPE_CHECKING:
    from agent_core import Agent
    from pi_cli.shell.context import ShellContext

HOOK_FUNCTIONS = ("input", "tool_call", "tool_result", "turn_end", "agent_end", "session_start")
log = logging.getLogger("pi_cli.hooks")


@dataclass
class InputEvent:
    """User input before slash commands and templates are expanded."""

    text: str
    cwd: Path
    shell: Any = None


@dataclass
class ToolCallEvent:
    """A validated tool call about to run."""

    tool_name: str
    tool_call_id: str
    args: dict[str, Any]
    cwd: Path
    shell: Any = None


@dataclass
class ToolResultEvent:
    """A finished tool call."""

    tool_name: str
    tool_call_id: str
    args: dict[str, Any]
    content: str  # the result's text, for convenience
    result: Any  # the agent_core ToolResult
    is_error: bool
    cwd: Path
    shell: Any = None


@dataclass
class SessionStartEvent:
    """The shell started (or switched to) a session."""

    session_id: str
    session_file: str | None
    cwd: Path
    shell: Any = None


@dataclass
class PythonHook:
    """One loaded module."""

    path: Path
    module: ModuleType
    functions: dict[str, Any] = field(default_factory=dict)


def load_python_hooks(cwd: Path) -> tuple[list[PythonHook], list[str]]:
    """Import every ``*.py`` in the global then the project hook directory (sorted by name)."""
    hooks: list[PythonHook] = []
    problems: list[str] = []
    for directory in (pi_home() / "hooks", project_dir(cwd) / "hooks"):
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.py")):
            name = f"pi_hook_{abs(hash(str(path.resolve())))}_{path.stem}"
            try:
                spec = importlib.util.spec_from_file_location(name, path)
                if spec is None or spec.loader is None:
                    raise ImportError("not a Python module")
                module = importlib.util.module_from_spec(spec)
                sys.modules[name] = module
                spec.loader.exec_module(module)
            except Exception as exc:  # noqa: BLE001 - a broken hook file must not stop pi
                sys.modules.pop(name, None)
                problems.append(f"Hook {path} failed to load: {type(exc).__name__}: {exc}")
                continue
            functions = {
                fn: getattr(module, fn)
                for fn in HOOK_FUNCTIONS
                if callable(getattr(module, fn, None))
            }
            if functions:
                hooks.append(PythonHook(path, module, functions))
    return hooks, problems


async def _call(function: Any, event: Any) -> Any:
    result = function(event)
    if inspect.isawaitable(result):
        result = await result
    return result


class HookManager:
    """Dispatches events to Python and command hooks for one shell."""

    def __init__(
        self, shell: ShellContext, python_hooks: list[PythonHook], command_hooks: list[CommandHook]
    ) -> None:
        self.shell = shell
        self.python_hooks = python_hooks
        self.command_hooks = command_hooks
        self._tasks: set[asyncio.Task[Any]] = set()

    @classmethod
    def load(cls, shell: ShellContext) -> HookManager:
        """Load the Python hook modules and the command hooks of the settings."""
        python_hooks, problems = load_python_hooks(shell.cwd)
        command_hooks, config_problems = parse_hooks(shell.settings.hooks or {})
        for problem in problems + config_problems:
            shell.notify(problem, "warning")
        return cls(shell, python_hooks, command_hooks)

    @property
    def active(self) -> bool:
        """Any hook is configured."""
        return bool(self.python_hooks or self.command_hooks)

    def input_transforms(self) -> list[Callable[[str], Awaitable[str | None]]]:
        """The shell's input transforms these hooks provide."""
        return [self.transform_input] if self.active else []

    def attach(self, agent: Agent) -> None:
        """Wire the tool-call hooks into ``agent`` and follow its events (only if configured)."""
        if not self.active:
            return
        agent.before_tool_call = self.before_tool_call
        agent.after_tool_call = self.after_tool_call
        agent.subscribe(self.on_event)

    def _functions(self, name: str) -> list[tuple[Path, Any]]:
        return [(h.path, h.functions[name]) for h in self.python_hooks if name in h.functions]

    def _commands(self, event: str, tool_name: str | None = None) -> list[CommandHook]:
        return [h for h in self.command_hooks if h.event == event and h.matches(tool_name)]

    def _report(self, path: Path | str, name: str, exc: BaseException) -> str:
        text = f"Hook {path} ({name}) failed: {type(exc).__name__}: {exc}"
        self.shell.notify(text, "error")
        return text

    # ------------------------------------------------------------------ input

    async def transform_input(self, text: str) -> str | None:
        """An ``input_transforms`` entry: ``None`` when a hook consumed the input."""
        for path, function in self._functions("input"):
            try:
                result = await _call(function, InputEvent(text, self.shell.cwd, self.shell))
            except Exception as exc:  # noqa: BLE001 - shown, input goes on unchanged
                self._report(path, "input", exc)
                continue
            if isinstance(result, str):
                text = result
            elif isinstance(result, dict) and result.get("handled"):
                if result.get("output"):
                    self.shell.notify(str(result["output"]))
                return None
        for hook in self._commands("UserPromptSubmit"):
            outcome = await run_command_hook(
                hook, self._payload("UserPromptSubmit", prompt=text), self.shell.cwd
            )
            if outcome.problem:
                self.shell.notify(outcome.problem, "warning")
            if outcome.block:
                self.shell.notify(f"Prompt blocked by hook: {outcome.message}", "warning")
                return None
            if outcome.stdout and not outcome.data:
                text = f"{text}\n\n{outcome.stdout}"  # Claude Code: stdout is added as context
        return text

    # ------------------------------------------------------------------ tools

    async def before_tool_call(
        self, ctx: ToolCallContext, signal: AbortSignal
    ) -> BeforeToolCallResult | None:
        """The agent's ``before_tool_call``: Python hooks, then PreToolUse commands."""
        call = ctx.tool_call
        args = dict(call.arguments)
        rewritten = False
        for path, function in self._functions("tool_call"):
            event = ToolCallEvent(call.name, call.id, dict(args), self.shell.cwd, self.shell)
            try:
                result = await _call(function, event)
            except Exception as exc:  # noqa: BLE001 - fail safe: block and say why
                return BeforeToolCallResult(
                    block=True, reason=f"Tool call blocked: {self._report(path, 'tool_call', exc)}"
                )
            if isinstance(result, BeforeToolCallResult):
                result = {
                    "block": result.block,
                    "reason": result.reason,
                    "arguments": result.arguments,
                }
            if isinstance(result, dict):
                if result.get("block"):
                    return BeforeToolCallResult(
                        block=True,
                        reason=str(result.get("reason") or f"Blocked by hook {path.name}"),
                    )
                if isinstance(result.get("arguments"), dict):
                    args, rewritten = dict(result["arguments"]), True
        for hook in self._commands("PreToolUse", call.name):
            payload = self._payload(
                "PreToolUse", tool_name=call.name, tool_input=args, tool_use_id=call.id
            )
            outcome = await run_command_hook(hook, payload, self.shell.cwd)
            if outcome.problem:
                self.shell.notify(outcome.problem, "warning")
            if outcome.block:
                return BeforeToolCallResult(block=True, reason=outcome.message)
            if outcome.updated_input is not None:
                args, rewritten = dict(outcome.updated_input), True
        return BeforeToolCallResult(arguments=args) if rewritten else None

    async def after_tool_call(
        self, ctx: AfterToolCallContext, signal: AbortSignal
    ) -> AfterToolCallResult | None:
        """The agent's ``after_tool_call``: Python hooks patch, then PostToolUse commands."""
        call = ctx.tool_call
        result, is_error = ctx.result, ctx.is_error
        changed = False
        for path, function in self._functions("tool_result"):
            event = ToolResultEvent(
                call.name,
                call.id,
                dict(call.arguments),
                result.text,
                result,
                is_error,
                self.shell.cwd,
                self.shell,
            )
            try:
                patch = await _call(function, event)
            except Exception as exc:  # noqa: BLE001 - shown; the result stays as it was
                self._report(path, "tool_result", exc)
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
        for hook in self._commands("PostToolUse", call.name):
            payload = self._payload(
                "PostToolUse",
                tool_name=call.name,
                tool_input=dict(call.arguments),
                tool_use_id=call.id,
                tool_response={**to_wire(result), "isError": is_error},
            )
            outcome = await run_command_hook(hook, payload, self.shell.cwd)
            if outcome.problem:
                self.shell.notify(outcome.problem, "warning")
            if outcome.block:
                # The tool already ran: the hook's message is added for the model to read.
                text = f"{result.text}\n\n[PostToolUse hook] {outcome.message}".strip()
                result, is_error = AfterToolCallResult(content=text, is_error=True).apply(
                    result, is_error
                )
                changed = True
        if not changed:
            return None
        return AfterToolCallResult(
            content=result.content, details=result.details, is_error=is_error
        )

    # ------------------------------------------------------------------ notifications

    def on_event(self, event: Any) -> None:
        """Shell listener: forwards ``turn_end`` and ``agent_end`` to Python hooks."""
        name = (
            "turn_end"
            if isinstance(event, TurnEnd)
            else "agent_end"
            if isinstance(event, AgentEnd)
            else None
        )
        if name is not None:
            self.notify_hooks(name, event)

    def notify_hooks(self, name: str, event: Any) -> None:
        """Call every ``name`` hook; async ones run as tasks (no loop: run to completion)."""
        for path, function in self._functions(name):
            try:
                result = function(event)
            except Exception as exc:  # noqa: BLE001
                self._report(path, name, exc)
                continue
            if inspect.isawaitable(result):
                self._schedule(path, name, result)

    def _schedule(self, path: Path, name: str, awaitable: Any) -> None:
        async def guarded() -> None:
            try:
                await awaitable
            except Exception as exc:  # noqa: BLE001
                self._report(path, name, exc)

        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            asyncio.run(guarded())
            return
        task = loop.create_task(guarded())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def session_start(self) -> None:
        """Tell hooks which session is active."""
        if not self.active:
            return
        session = self.shell.session
        event = SessionStartEvent(
            session.session_id,
            str(session.path) if session.path else None,
            self.shell.cwd,
            self.shell,
        )
        self.notify_hooks("session_start", event)

    def _payload(self, event: str, **fields: Any) -> dict[str, Any]:
        return {
            "hook_event_name": event,
            "session_id": self.shell.session.session_id,
            "transcript_path": str(self.shell.session.path or ""),
            "cwd": str(self.shell.cwd),
            **fields,
        }
