"""An MCP server's tool as a pi :class:`~agent_core.Tool` named ``mcp__<server>__<tool>``.

Its parameters are the server's JSON Schema, passed through to the model and checked with a
JSON Schema validator (:func:`agent_core.json_schema.json_schema_model`). ``read_only`` is the
server's ``readOnlyHint``: the permission engine lets such calls run without asking.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from agent_core import AbortSignal, ToolBase, ToolResult
from agent_core.json_schema import JsonSchemaArguments, json_schema_model
from agent_core.tool import OnToolUpdate, ToolError, first_line

Caller = Callable[[str, str, dict[str, Any], AbortSignal], Awaitable[tuple[ToolResult, bool]]]
"""(server, tool, arguments, cancel) -> (result, is_error); raises ToolError."""
MAX_DESCRIPTION = 8000


class McpTool(ToolBase):
    """One tool of one server (built on the MCP thread, used on the shell's)."""

    def __init__(self, name: str, server: str, spec: Any, caller: Caller) -> None:
        self.name = name
        self.server = server
        self.tool = str(spec.name)
        annotations = spec.annotations
        self.read_only = bool(annotations is not None and annotations.read_only_hint)
        self.display = (annotations.title if annotations else None) or spec.title or self.tool
        description = (spec.description or "").strip() or f"The {self.tool} tool of {server}."
        if len(description) > MAX_DESCRIPTION:
            description = description[: MAX_DESCRIPTION - 1] + "…"
        self.description = description
        self.parameters: type[JsonSchemaArguments] = json_schema_model(name, spec.input_schema)
        self._caller = caller

    @property
    def summary(self) -> str:
        """``[server] first line of the description``."""
        return first_line(f"[MCP {self.server}] {self.description}")

    def title(self, args: Mapping[str, Any]) -> str:
        """``server: tool first-argument``."""
        detail = super().title(args)
        return first_line(f"{self.server}: {self.display} {detail}".rstrip())

    async def execute(
        self,
        tool_call_id: str,
        args: Any,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Call the tool on its server; an ``isError`` result fails the call with its text."""
        arguments = args.root if isinstance(args, JsonSchemaArguments) else dict(args or {})
        result, is_error = await self._caller(self.server, self.tool, arguments, cancel)
        if is_error:
            raise ToolError(result.text or f"{self.name} failed (the server sent no message)")
        return result
