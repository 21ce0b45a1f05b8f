"""In-process tool hooks (Python extensions): a stage the hook manager runs first.

An extension's ``before_tool_call`` handlers run before pi's Python hooks and command hooks; a
rewrite is then checked by them and by the permission rules like any call, and an answer ends
the call without the tool (and without a permission question: nothing runs). Its
``after_tool_call`` handlers run before the other hooks' too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from agent_core import ToolCall, ToolResult


@dataclass
class StageDecision:
    """What the in-process handlers decided about one call (all unset: run it as it is)."""

    block: str | None = None
    """Why not to run it."""
    args: dict[str, Any] | None = None
    """Run it with these arguments instead."""
    answer: tuple[ToolResult, bool] | None = None
    """Its result (and error flag), instead of running it."""


class ToolStage(Protocol):
    """The extensions' tool hooks, as the hook manager calls them."""

    @property
    def active(self) -> bool:
        """Any extension handles tool calls (or has tools whose code may need loading)."""
        ...

    async def before(self, tool: str, call_id: str, args: dict[str, Any]) -> StageDecision:
        """Decide one call before the other hooks."""
        ...

    async def after(
        self, tool: str, call_id: str, args: dict[str, Any], result: ToolResult, is_error: bool
    ) -> tuple[ToolResult, bool] | None:
        """The result to keep instead (``None``: unchanged)."""
        ...


@dataclass
class PreToolUse:
    """What the PreToolUse stage (Python ``tool_call`` hooks, then commands) decided."""

    args: dict[str, Any]
    rewritten: bool = False
    block: bool = False
    reason: str = ""
    decision: Literal["allow", "ask"] | None = None
    context: str = ""
    answer: tuple[ToolResult, bool] | None = None  # an extension answered (result, is_error)


async def in_process_before(
    in_process: ToolStage | None, stage: PreToolUse, tool: str, call_id: str
) -> bool:
    """Run the extensions' stage into ``stage``; True when it decided (blocked or answered)."""
    if in_process is None or not in_process.active:
        return False
    decided = await in_process.before(tool, call_id, stage.args)
    if decided.block is not None or decided.answer is not None:
        stage.block, stage.reason = decided.block is not None, decided.block or ""
        stage.answer = decided.answer
        return True
    if decided.args is not None:
        stage.args, stage.rewritten = dict(decided.args), True
    return False


async def in_process_after(
    in_process: ToolStage | None, call: ToolCall, result: ToolResult, is_error: bool
) -> tuple[ToolResult, bool] | None:
    """The extensions' result for ``call`` instead of ``result`` (``None``: unchanged)."""
    if in_process is None or not in_process.active:
        return None
    return await in_process.after(call.name, call.id, dict(call.arguments), result, is_error)
