"""Executing one batch of tool calls: validation, hooks, sequential or parallel runs, skips.

Every call ends as a ``toolResult`` message appended to the context, errors included.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from agent_core.abort import Aborted, AbortSignal, run_abortable
from agent_core.context import AgentContext, AgentLoopConfig, Emit
from agent_core.events import (
    MessageEnd,
    MessageStart,
    ToolExecutionEnd,
    ToolExecutionStart,
    ToolExecutionUpdate,
)
from agent_core.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResult,
    ToolResultMessage,
    freeze,
)
from agent_core.tool import (
    AfterToolCallContext,
    Tool,
    ToolCallContext,
    ToolError,
    validate_arguments,
)

SKIPPED_FOR_STEERING = "Skipped due to queued user message."
SKIPPED_FOR_ABORT = "Skipped: the run was aborted."
ABORTED = "Tool execution was aborted."


@dataclass
class BatchResult:
    """What one batch produced: results in the model's order, steering drained mid-batch."""

    results: list[ToolResultMessage] = field(default_factory=list)
    steering: list[Message] = field(default_factory=list)
    terminate: bool = False


@dataclass
class _Prepared:
    call: ToolCall
    tool: Tool | None = None
    args: Any = None  # the validated instance of the tool's parameters
    error: str | None = None
    answer: tuple[ToolResult, bool] | None = None  # a hook answered instead of the tool


async def execute_tool_calls(
    context: AgentContext,
    assistant_message: AssistantMessage,
    tool_calls: list[ToolCall],
    config: AgentLoopConfig,
    emit: Emit,
    signal: AbortSignal,
) -> BatchResult:
    """Run a batch in ``config.tool_execution`` mode and return its results."""
    runner = _BatchRunner(context, assistant_message, config, emit, signal)
    if config.tool_execution == "sequential":
        await runner.run_sequential(tool_calls)
    else:
        await runner.run_parallel(tool_calls)
    batch = runner.batch
    batch.terminate = bool(batch.results) and runner.all_terminate
    return batch


class _BatchRunner:
    def __init__(
        self,
        context: AgentContext,
        assistant_message: AssistantMessage,
        config: AgentLoopConfig,
        emit: Emit,
        signal: AbortSignal,
    ) -> None:
        self.context = context
        self.assistant_message = assistant_message
        self.config = config
        self.emit = emit
        self.signal = signal
        self.batch = BatchResult()
        self.all_terminate = True

    # ------------------------------------------------------------------ modes

    async def run_sequential(self, calls: list[ToolCall]) -> None:
        for call in calls:
            if self._skip_reason() is not None:
                self._finish(call, ToolResult.of_text(self._skip_reason() or ""), True)
                continue
            self.emit(
                ToolExecutionStart(tool_call_id=call.id, tool_name=call.name, args=call.arguments)
            )
            prepared = await self._prepare(call)
            result, is_error = await self._run_prepared(prepared)
            self._finish(call, result, is_error, started=True)
            self._poll_steering()

    async def run_parallel(self, calls: list[ToolCall]) -> None:
        prepared_calls: list[_Prepared | str] = []
        for call in calls:
            reason = self._skip_reason()
            if reason is not None:
                prepared_calls.append(reason)
                continue
            self.emit(
                ToolExecutionStart(tool_call_id=call.id, tool_name=call.name, args=call.arguments)
            )
            prepared_calls.append(await self._prepare(call))
            self._poll_steering()
        tasks = [
            asyncio.ensure_future(self._run_and_announce(item))
            if isinstance(item, _Prepared)
            else None
            for item in prepared_calls
        ]
        try:
            for call, item, task in zip(calls, prepared_calls, tasks, strict=True):
                if task is None:
                    self._finish(call, ToolResult.of_text(str(item)), True)
                else:
                    result, is_error = await task
                    self._finish(call, result, is_error, started=True, ended=True)
        finally:
            for task in tasks:
                if task is not None and not task.done():
                    task.cancel()

    async def _run_and_announce(self, prepared: _Prepared) -> tuple[ToolResult, bool]:
        """Run one call of a parallel batch and say it ended as soon as it has: a fast call
        is not shown running (nor timed) until a slower one before it is done. The result
        messages still join the context in the order of the calls."""
        result, is_error = await self._run_prepared(prepared)
        self._announce_end(prepared.call, result, is_error)
        return result, is_error

    # ------------------------------------------------------------------ steps

    def _skip_reason(self) -> str | None:
        if self.signal.aborted:
            return SKIPPED_FOR_ABORT
        if self.batch.steering:
            return SKIPPED_FOR_STEERING
        return None

    def _poll_steering(self) -> None:
        if self.signal.aborted:  # aborted: leave queued messages for the user
            return
        if self.config.get_steering_messages is not None and not self.batch.steering:
            self.batch.steering.extend(self.config.get_steering_messages())

    async def _prepare(self, call: ToolCall) -> _Prepared:
        tool = next((t for t in self.context.tools if t.name == call.name), None)
        if tool is None:
            # Name what exists: the model corrects itself on the next turn.
            names = ", ".join(t.name for t in self.context.tools) or "none"
            what = f"Tool {call.name} not found" if call.name else "The tool call names no tool"
            return _Prepared(call, error=f"{what}. Available tools: {names}.")
        args, error = validate_arguments(tool, call)
        if args is None:
            return _Prepared(call, error=error or f"Invalid arguments for tool {call.name}")
        hook = self.config.before_tool_call
        if hook is not None:
            ctx = ToolCallContext(self.assistant_message, call, args, self.context.messages)
            try:
                # Abortable: Esc must not wait for a slow hook (e.g. one asking the user).
                decision = await run_abortable(hook(ctx, self.signal), self.signal)
            except Aborted:
                return _Prepared(call, error=ABORTED)
            except Exception as exc:  # noqa: BLE001 - fail safe: a broken hook blocks the call
                return _Prepared(
                    call, error=f"Tool call blocked: hook failed: {type(exc).__name__}: {exc}"
                )
            if decision is not None and decision.block:
                return _Prepared(call, error=decision.reason or "Tool execution was blocked")
            if decision is not None and decision.result is not None:
                return _Prepared(call, tool, args, answer=(decision.result, decision.is_error))
            if decision is not None and decision.arguments is not None:
                rewritten = call.model_copy(update={"arguments": decision.arguments})
                args, error = validate_arguments(tool, rewritten)
                if args is None:
                    return _Prepared(call, error=error or f"Invalid arguments for tool {call.name}")
        return _Prepared(call, tool=tool, args=args)

    async def _run_prepared(self, prepared: _Prepared) -> tuple[ToolResult, bool]:
        if prepared.error is not None or prepared.tool is None or prepared.args is None:
            return ToolResult.of_text(prepared.error or "Tool not available"), True
        if prepared.answer is not None:
            result, is_error = prepared.answer
        else:
            result, is_error = await self._execute(prepared.tool, prepared.call, prepared.args)
        hook = self.config.after_tool_call
        if hook is None:
            return result, is_error
        ctx = AfterToolCallContext(
            self.assistant_message,
            prepared.call,
            prepared.args,
            result,
            is_error,
            self.context.messages,
        )
        try:
            override = await run_abortable(hook(ctx, self.signal), self.signal)
            # Inside the try: an override with bad content (not content blocks) must not break
            # the loop either; the call still ends with the tool's own result.
            return override.apply(result, is_error) if override is not None else (result, is_error)
        except Aborted:  # the tool already finished; keep its result
            return result, is_error
        except Exception:  # noqa: BLE001 - contract: must not raise; keep the tool's own result
            return result, is_error

    async def _execute(self, tool: Tool, call: ToolCall, args: object) -> tuple[ToolResult, bool]:
        def on_update(partial: ToolResult) -> None:
            self.emit(
                ToolExecutionUpdate(
                    tool_call_id=call.id,
                    tool_name=call.name,
                    args=call.arguments,
                    partial_result=partial,
                )
            )

        # Its own task, so an abort cancels the tool at once (bash kills its process group).
        try:
            result = await run_abortable(
                tool.execute(call.id, args, self.signal, on_update), self.signal
            )
        except Aborted:
            return ToolResult.of_text(ABORTED), True
        except ToolError as exc:
            return ToolResult.of_text(str(exc) or type(exc).__name__), True
        except Exception as exc:  # noqa: BLE001 - a tool's crash is its result: the model reads it
            return ToolResult.of_text(f"{type(exc).__name__}: {exc}"), True
        if not isinstance(result, ToolResult):
            result = ToolResult.of_text(str(result))
        return result, self.signal.aborted

    def _announce_end(self, call: ToolCall, result: ToolResult, is_error: bool) -> None:
        self.emit(
            ToolExecutionEnd(
                tool_call_id=call.id, tool_name=call.name, result=result, is_error=is_error
            )
        )

    def _finish(
        self,
        call: ToolCall,
        result: ToolResult,
        is_error: bool,
        started: bool = False,
        ended: bool = False,
    ) -> None:
        if not started:
            self.emit(
                ToolExecutionStart(tool_call_id=call.id, tool_name=call.name, args=call.arguments)
            )
        if not ended:
            self._announce_end(call, result, is_error)
        message = freeze(
            ToolResultMessage(
                tool_call_id=call.id,
                tool_name=call.name,
                content=result.content,
                details=result.details,
                is_error=is_error,
            )
        )
        if is_error or not result.terminate:
            self.all_terminate = False
        self.context.messages.append(message)
        self.batch.results.append(message)
        self.emit(MessageStart(message=message))
        self.emit(MessageEnd(message=message))
