"""Helper for tool tests: run a tool the way the loop does (validated args, abort signal)."""

from __future__ import annotations

from typing import Any

from agent_core import AbortSignal, Tool, ToolResult


async def run(
    tool: Tool, cancel: AbortSignal | None = None, on_update: Any = None, **arguments: Any
) -> ToolResult:
    """Validate ``arguments`` against the tool's model and execute it."""
    args = tool.parameters.model_validate(arguments)
    return await tool.execute("call-1", args, cancel or AbortSignal(), on_update)
