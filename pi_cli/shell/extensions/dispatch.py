"""Shell events, input, tool calls and context through the extensions' handlers.

Notifications (every shell event by its ``type``) are fired without waiting, in order, each on
its extension's thread with a copy of the event. Decisions are awaited, extension by extension in
load order: ``input`` (replace or consume what was typed), ``before_tool_call`` (block, rewrite,
answer instead; a handler that fails blocks the call: fail safe), ``after_tool_call`` (patch the
result), ``context`` (the messages a request sends). A cached extension is loaded before it is
asked. Provider requests are in :mod:`.provider`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core import AbortSignal, ToolResult
from agent_core.tool import AfterToolCallResult
from pi_cli.shell.extensions.names import BUS_PREFIX, DECISION_EVENTS, DERIVED_EVENTS
from pi_cli.shell.extensions.runtime import CallFailed, Extension, Extensions
from pi_cli.shell.extensions.tool import ExtensionTool, as_result
from pi_cli.shell.hooks.in_process import StageDecision

if TYPE_CHECKING:
    from agent_core import Message
    from pi_cli.shell.events import ShellEvent
    from pi_cli.shell.extensions.lifecycle import Lifecycle
    from pi_cli.shell.run_start import RunStart

TOOL_EVENTS = ("before_tool_call", "after_tool_call")
_SESSION_REASONS = {"new", "resume", "fork", "tree"}


def parse_before(result: object, name: str) -> StageDecision:
    """A ``before_tool_call`` handler's answer as a decision (``None``: no opinion)."""
    from pi_cli.shell.extensions.api import Answer, Block, Rewrite  # with the first handler

    if isinstance(result, Block):
        return StageDecision(block=result.reason or f"Blocked by extension {name}")
    if isinstance(result, Rewrite):
        return StageDecision(args=dict(result.args))
    if isinstance(result, Answer):
        return StageDecision(answer=(as_result(result.result), result.is_error))
    if isinstance(result, Mapping):
        if result.get("block"):
            return StageDecision(block=str(result.get("reason") or f"Blocked by extension {name}"))
        if "result" in result:
            return StageDecision(answer=(as_result(result["result"]), bool(result.get("is_error"))))
        new = result.get("args", result.get("arguments", result.get("input")))
        if isinstance(new, Mapping):
            return StageDecision(args=dict(new))
    return StageDecision()


def parse_patch(result: object) -> dict[str, Any] | None:
    """An ``after_tool_call`` handler's answer as the fields to replace (``None``: none)."""
    from pi_cli.shell.extensions.api import Patch

    if isinstance(result, Patch):
        return result.fields() or None
    if isinstance(result, Mapping):
        fields = {k: result[k] for k in ("content", "details", "is_error") if k in result}
        if "isError" in result:
            fields["is_error"] = result["isError"]
        return fields or None
    return None


class Dispatcher:
    """What the shell asks of the extensions (one per shell)."""

    def __init__(self, extensions: Extensions, cwd: Path) -> None:
        self.extensions = extensions
        self.cwd = cwd
        self._started: asyncio.Future[None] | None = None
        path = extensions.host.session.path
        self._first = (str(path) if path else None, extensions.host.model_id)
        self._lifecycle: Lifecycle | None = None
        extensions.deliver = self.deliver

    @property
    def lifecycle(self) -> Lifecycle:
        """pi-ts's lifecycle events (:mod:`.lifecycle`: loaded with the first one needed)."""
        if self._lifecycle is None:
            from pi_cli.shell.extensions.lifecycle import Lifecycle

            self._lifecycle = Lifecycle(self.extensions, self.handling, *self._first)
        return self._lifecycle

    async def before_agent_start(self, start: RunStart) -> None:
        """A ``run_preparers`` entry (nothing loads unless an extension handles it)."""
        if self.handling("before_agent_start"):
            await self.lifecycle.before_agent_start(start)

    def handling(self, event: str) -> list[Extension]:
        """The usable extensions that handle ``event``, in load order."""
        return [
            ext
            for ext in self.extensions.usable()
            if event in ext.events or ("*" in ext.events and _wildcard(event))
        ]

    # ------------------------------------------------------------------ start

    async def start(self, reason: str = "startup") -> None:
        """Once, when pi first runs with a loop: load the extensions that handle
        ``session_start`` and tell them (the first input waits for this)."""
        if self._started is None:
            self._started = asyncio.ensure_future(self._session_start(reason))
        await asyncio.shield(self._started)

    async def _session_start(self, reason: str) -> None:
        from pi_cli.shell.extensions.api import SessionStartEvent

        for ext in self.handling("session_start"):
            if not await self.extensions.ensure(ext) or ext.context is None:
                continue
            event = SessionStartEvent(
                ext.context.session_id,
                ext.context.session_file,
                reason,  # type: ignore[arg-type]
            )
            for handler in ext.handlers("session_start"):
                try:
                    await self.extensions.call(ext, "session_start", handler, event)
                except CallFailed:
                    break

    # ------------------------------------------------------------------ notifications

    def on_event(self, event: ShellEvent) -> None:
        """Shell listener: fire every handler of ``event.type`` (and ``*``)."""
        name = str(getattr(event, "type", ""))
        if name == "session_changed" and getattr(event, "reason", "") in _SESSION_REASONS:
            self._fire_later(self._session_start(str(getattr(event, "reason", ""))))
        self._notify(name, event)
        if name in _DERIVED_FROM:  # pi-ts's names for some of them (:mod:`.lifecycle`)
            derived = self.lifecycle.derive(event)
            if derived is not None:
                self._notify(*derived)

    def _notify(self, name: str, event: Any) -> None:
        for ext in self.handling(name):
            if ext.state == "cached":
                self._fire_later(self._load_then_fire(ext, name, event))
                continue
            for handler in ext.handlers(name):
                self.extensions.fire(ext, name, handler, _copy(event))

    async def _load_then_fire(self, ext: Extension, name: str, event: Any) -> None:
        if await self.extensions.ensure(ext):
            for handler in ext.handlers(name):
                self.extensions.fire(ext, name, handler, _copy(event))

    @staticmethod
    def _fire_later(work: Any) -> None:
        try:
            task = asyncio.get_running_loop().create_task(work)
        except RuntimeError:
            work.close()  # no loop yet (the shell is being built)
            return
        _TASKS.add(task)
        task.add_done_callback(_TASKS.discard)

    # ------------------------------------------------------------------ pi.events

    def deliver(self, name: str, payload: object) -> None:
        """On pi's loop: every subscriber of ``name`` gets ``payload`` (:mod:`.bus`)."""
        for ext in self.handling(BUS_PREFIX + name):
            if ext.state == "cached":
                self._fire_later(self._load_then_deliver(ext, name, payload))
            else:
                self._deliver(ext, name, payload)

    def _deliver(self, ext: Extension, name: str, payload: object) -> None:
        from pi_cli.shell.extensions.bus import PayloadMismatch, fit

        try:
            given = fit(payload, ext.registration.payloads.get(name))
        except PayloadMismatch as exc:
            self.extensions.notify(
                f"Extension {ext.name}: event {name!r} not delivered: its payload is {exc}",
                "warning",
            )
            return
        for handler in ext.handlers(BUS_PREFIX + name):
            self.extensions.fire(ext, f"event {name}", handler, given)

    async def _load_then_deliver(self, ext: Extension, name: str, payload: object) -> None:
        if await self.extensions.ensure(ext):
            self._deliver(ext, name, payload)

    # ------------------------------------------------------------------ input

    async def transform_input(self, text: str) -> str | None:
        """``input`` handlers: the text to use (``None``: an extension handled it)."""
        from pi_cli.shell.extensions.api import Handled, InputEvent

        await self.start()
        for ext in self.handling("input"):
            if not await self.extensions.ensure(ext):
                continue
            for handler in ext.handlers("input"):
                try:
                    result = await self.extensions.call(ext, "input", handler, InputEvent(text))
                except CallFailed:
                    break
                if isinstance(result, Handled) or (
                    isinstance(result, Mapping) and result.get("handled")
                ):
                    output = result.output if isinstance(result, Handled) else result.get("output")
                    if output:
                        self.extensions.notify(str(output), "info")
                    return None
                if isinstance(result, str):
                    text = result
        return text

    # ------------------------------------------------------------------ tools (hooks.in_process)

    @property
    def active(self) -> bool:
        """Extensions take part in tool calls (or own tools whose code is not loaded yet)."""
        return any(
            any(e in ext.events for e in TOOL_EVENTS)
            or (ext.state == "cached" and ext.manifest and ext.manifest.tools)
            for ext in self.extensions.usable()
        )

    async def before(self, tool: str, call_id: str, args: dict[str, Any]) -> StageDecision:
        """``before_tool_call`` handlers, in load order; the first block or answer decides."""
        from pi_cli.shell.extensions.api import ToolCallEvent

        await self._load_owner(tool)
        decision = StageDecision()
        current = dict(args)
        for ext in self.handling("before_tool_call"):
            if not await self.extensions.ensure(ext):
                continue
            for handler in ext.handlers("before_tool_call"):
                event = ToolCallEvent(tool, call_id, dict(current), self.cwd)
                try:
                    result = await self.extensions.call(ext, "before_tool_call", handler, event)
                except CallFailed:
                    return StageDecision(
                        block=f"Blocked: extension {ext.name} failed while checking this call "
                        f"({ext.problem})."
                    )
                parsed = parse_before(result, ext.name)
                if parsed.block is not None or parsed.answer is not None:
                    return parsed
                new = parsed.args if parsed.args is not None else event.args
                if new != current:
                    current, decision.args = dict(new), dict(new)
        return decision

    async def after(
        self, tool: str, call_id: str, args: dict[str, Any], result: ToolResult, is_error: bool
    ) -> tuple[ToolResult, bool] | None:
        """``after_tool_call`` handlers patch the result, in load order."""
        from pi_cli.shell.extensions.api import ToolResultEvent

        changed = False
        for ext in self.handling("after_tool_call"):
            if not await self.extensions.ensure(ext):
                continue
            for handler in ext.handlers("after_tool_call"):
                event = ToolResultEvent(
                    tool, call_id, dict(args), result.model_copy(deep=True), is_error
                )
                try:
                    patch = parse_patch(
                        await self.extensions.call(ext, "after_tool_call", handler, event)
                    )
                except CallFailed:
                    break
                if patch:
                    try:
                        result, is_error = AfterToolCallResult(**patch).apply(result, is_error)
                    except Exception as exc:  # noqa: BLE001 - a malformed patch is ignored, said
                        self.extensions.notify(
                            f"Extension {ext.name}: bad after_tool_call patch ({exc})", "warning"
                        )
                        continue
                    changed = True
        return (result, is_error) if changed else None

    async def _load_owner(self, tool: str) -> None:
        """Load the extension of ``tool`` first: the permission engine needs its real
        ``read_only`` and ``file_effects``."""
        for ext in self.extensions.usable():
            if (
                ext.state == "cached"
                and ext.manifest
                and any(t["name"] == tool for t in ext.manifest.tools)
            ):
                await self.extensions.ensure(ext)
                return

    # ------------------------------------------------------------------ context

    async def transform_context(
        self, messages: list[Message], signal: AbortSignal
    ) -> list[Message]:
        """``context`` handlers: the messages this request sends (the history is unchanged)."""
        from agent_core import AssistantMessage, ToolResultMessage, UserMessage
        from pi_cli.shell.extensions.api import ContextEvent

        for ext in self.handling("context"):
            if not await self.extensions.ensure(ext):
                continue
            for handler in ext.handlers("context"):
                event = ContextEvent([m.model_copy(deep=True) for m in messages])
                try:
                    result = await self.extensions.call(ext, "context", handler, event)
                except CallFailed:
                    break
                kinds = (UserMessage, AssistantMessage, ToolResultMessage)
                if isinstance(result, list) and all(isinstance(m, kinds) for m in result):
                    messages = list(result)
                elif result is not None:
                    self.extensions.notify(
                        f"Extension {ext.name}: context handlers return a list of messages (ignored)",
                        "warning",
                    )
        return messages


_DERIVED_FROM = frozenset({"session_changed", "compaction_end", "model_changed"})
_TASKS: set[asyncio.Task[Any]] = set()


def tool_owner(tool: object) -> str | None:
    """The extension a tool belongs to (``None``: not an extension's)."""
    return tool.extension if isinstance(tool, ExtensionTool) else None


def _wildcard(event: str) -> bool:
    """``*`` handlers get the shell's own events (not decisions, derived ones or the bus)."""
    return not (event in DECISION_EVENTS or event in DERIVED_EVENTS or event.startswith(BUS_PREFIX))


def _copy(event: Any) -> Any:
    """A copy for one handler (a shell event is a record; ours are dataclasses)."""
    import copy

    return event.model_copy(deep=True) if hasattr(event, "model_copy") else copy.deepcopy(event)
