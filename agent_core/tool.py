"""The ``Tool`` protocol, argument validation and the tool-call hook contracts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ValidationError

from agent_core.abort import AbortSignal
from agent_core.messages import AssistantMessage, Message, ToolCall, ToolResult
from agent_core.stream import ToolSpec
from agent_core.validation import one_line_validation_error

OnToolUpdate = Callable[[ToolResult], None]


class ToolError(Exception):
    """Raise from ``execute`` to fail a call with a clean message (no traceback)."""


@runtime_checkable
class Tool(Protocol):
    """A tool the model can call.

    ``parameters`` is a pydantic model; its JSON schema (field descriptions included) is what the
    model sees, and arguments are validated against it before ``execute`` runs. ``execute``
    may raise :class:`ToolError` (or any exception) to produce an error result; it must honour
    ``cancel`` and report progress through ``on_update`` when it streams.
    """

    name: str
    description: str
    parameters: type[BaseModel]

    async def execute(
        self,
        tool_call_id: str,
        args: Any,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult: ...


def tool_spec(tool: Tool) -> ToolSpec:
    """The name, description and JSON schema the model sees for ``tool``."""
    schema = tool.parameters.model_json_schema()
    schema.pop("title", None)
    return ToolSpec(name=tool.name, description=tool.description, parameters=schema)


def validate_arguments(tool: Tool, call: ToolCall) -> tuple[Any, str | None]:
    """Validate a call's arguments. Returns (parsed args, None) or (None, error message)."""
    if call.raw_arguments is not None:
        snippet = (
            call.raw_arguments
            if len(call.raw_arguments) <= 200
            else call.raw_arguments[:200] + "..."
        )
        return None, (
            f"Invalid JSON in arguments for tool {call.name}: {snippet!r}. "
            "Send the arguments as one JSON object."
        )
    try:
        return tool.parameters.model_validate(call.arguments), None
    except ValidationError as error:
        return None, one_line_validation_error(
            error, f"Invalid arguments for tool {call.name}: ", root="arguments"
        )
    except Exception as exc:  # noqa: BLE001 - a custom validator raising e.g. TypeError/KeyError
        return None, f"Invalid arguments for tool {call.name}: {type(exc).__name__}: {exc}"


@dataclass
class ToolCallContext:
    """What ``before_tool_call`` sees."""

    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: Any
    messages: list[Message]


@dataclass
class BeforeToolCallResult:
    """Returned by ``before_tool_call``: block with a reason, or replace the arguments."""

    block: bool = False
    reason: str | None = None
    arguments: dict[str, Any] | None = None


_UNSET: Any = object()


@dataclass
class AfterToolCallContext:
    """What ``after_tool_call`` sees."""

    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: Any
    result: ToolResult
    is_error: bool
    messages: list[Message]


@dataclass
class AfterToolCallResult:
    """Field-by-field overrides; a field left unset keeps the tool's value."""

    content: Any = _UNSET
    details: Any = _UNSET
    is_error: Any = _UNSET

    def apply(self, result: ToolResult, is_error: bool) -> tuple[ToolResult, bool]:
        """The result and error flag with the set fields replaced."""
        updated = result.model_copy()
        if self.content is not _UNSET:
            updated = ToolResult(
                content=self.content, details=updated.details, terminate=updated.terminate
            )
        if self.details is not _UNSET:
            updated.details = self.details
        if self.is_error is not _UNSET:
            is_error = bool(self.is_error)
        return updated, is_error


BeforeToolCall = Callable[[ToolCallContext, AbortSignal], Awaitable[BeforeToolCallResult | None]]
"""Hook run after validation, before execution. Contract: should not raise; a raise blocks."""

AfterToolCall = Callable[[AfterToolCallContext, AbortSignal], Awaitable[AfterToolCallResult | None]]
"""Hook run after execution. Contract: should not raise; a raise keeps the result unchanged."""
