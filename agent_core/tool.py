"""The ``Tool`` protocol, its defaults (:class:`ToolBase`), argument validation and hook contracts."""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias

from agent_core._frozen import frozen_value
from agent_core._schemas import copied, record_schema
from agent_core.abort import AbortSignal
from agent_core.messages import AssistantMessage, Message, ToolCall, ToolResult
from agent_core.records import Record, RecordError
from agent_core.stream import ToolSpec
from agent_core.validation import one_line_record_error

if TYPE_CHECKING:
    from pydantic import BaseModel

Parameters: TypeAlias = "type[Record] | type[BaseModel]"
"""What a tool's ``parameters`` may be: a :class:`Record` type (pi's own tools), or a pydantic
model (an extension's tool, an MCP tool's :mod:`agent_core.json_schema` arguments)."""

OnToolUpdate = Callable[[ToolResult], None]

TITLE_LIMIT = 200
"""Longest title (in characters) :func:`first_line` returns by default."""


class ToolError(Exception):
    """Raise from ``execute`` to fail a call with a clean message (no traceback)."""


@dataclass(frozen=True)
class FileEffect:
    """A file a call reads or writes, as given in its arguments (relative to cwd or absolute)."""

    path: str
    access: Literal["read", "write"]


class ToolArguments(Record, rename=None):
    """Base of a tool's arguments as a :class:`Record`: the fields are named as the model writes
    them (no camelCase renaming; ``field(name="activeForm")`` names one otherwise).

    Describe a field for the model with ``Annotated[int, msgspec.Meta(ge=1, description=...)]``;
    the class docstring is the schema's description. A check across fields goes in
    ``__post_init__`` (raise ``ValueError``: the model reads the message). Unknown keys are
    ignored unless the class says ``forbid_unknown_fields=True``.
    """


class Tool(Protocol):
    """A tool the model can call, and how front ends and the shell present it.

    ``parameters`` is a :class:`ToolArguments` (a :class:`Record`) type or a pydantic model; its
    JSON schema (field descriptions included) is what the model sees, and arguments are
    validated against it before ``execute`` runs (a pydantic model's with pydantic, imported only
    then). A tool whose schema comes as raw JSON Schema (an MCP server's) uses
    :func:`agent_core.json_schema.json_schema_model`: the schema passes through unchanged and
    arguments are checked with a JSON Schema validator. ``execute``
    may raise :class:`ToolError` (or any exception) to produce an error result; it must honour
    ``cancel`` and report progress through ``on_update`` when it streams.

    ``title`` and ``file_effects`` get the raw argument dict of a call, which may be partial
    (still streaming) or wrong-typed (not validated yet): they never raise. Every member is
    read-only, so a class attribute (``name = "read"``, ``parameters = ReadArgs``) satisfies
    it; :class:`ToolBase` supplies defaults for the presentation members.
    """

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str:
        """What the model reads about the tool."""
        ...

    @property
    def parameters(self) -> Parameters: ...

    @property
    def summary(self) -> str:
        """One line for the system prompt's tool list."""
        ...

    @property
    def guideline(self) -> str | None:
        """One system-prompt guideline line, or None."""
        ...

    def title(self, args: Mapping[str, Any]) -> str:
        """One line naming the call: ``$ ls -la``, ``src/app.py:10-50``, ``*.py in src``."""
        ...

    def file_effects(self, args: Mapping[str, Any]) -> list[FileEffect]:
        """The files the call reads or writes; ``[]`` when unknown (e.g. a shell command)."""
        ...

    async def execute(
        self,
        tool_call_id: str,
        args: Any,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult: ...


def first_line(text: str, limit: int = TITLE_LIMIT) -> str:
    """The first non-blank line of ``text``, stripped, at most ``limit`` characters.

    Ends with ``…`` when anything was left out (the rest of a long line, or further lines).
    """
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    if len(lines) == 1 and len(lines[0]) <= limit:
        return lines[0]
    return lines[0][: limit - 1] + "…"


def _scalar_text(value: object) -> str | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str | int | float):
        return str(value)
    return None


class ToolBase:
    """Defaults for the presentation members of :class:`Tool`.

    A subclass sets ``name``, ``description`` and ``parameters`` (class attributes or in
    ``__init__``) and defines ``execute``; it overrides the rest when it can say more.
    """

    name: str
    description: str
    parameters: Parameters
    guideline: str | None = None

    @property
    def summary(self) -> str:
        """The first non-blank line of ``description`` (clipped only when over-long)."""
        lines = [line for line in self.description.splitlines() if line.strip()]
        return first_line(lines[0]) if lines else ""

    def title(self, args: Mapping[str, Any]) -> str:
        """The first scalar argument that fits on one line, else the first one clipped."""
        if not isinstance(args, Mapping):
            return ""
        texts = [text for text in map(_scalar_text, args.values()) if text and text.strip()]
        for text in texts:
            if first_line(text) == text.strip():
                return text.strip()
        return first_line(texts[0]) if texts else ""

    def file_effects(self, args: Mapping[str, Any]) -> list[FileEffect]:
        """None known."""
        return []

    def refusal(self, args: Mapping[str, Any]) -> str | None:
        """Why the call would fail whatever the user answers, known without side effects
        (an optional member: a permission gate refuses such a call before asking). Gets the
        raw arguments; never raises."""
        return None


# A record type's schema never changes (a record cannot be rebuilt): made once per type,
# handed out as a copy (callers edit it).
_SCHEMAS: weakref.WeakKeyDictionary[type[Record], dict[str, Any]] = weakref.WeakKeyDictionary()
_FROZEN_SCHEMAS: weakref.WeakKeyDictionary[type[Record], dict[str, Any]] = (
    weakref.WeakKeyDictionary()
)
"""Each record's schema frozen, shared by the specs of every tool taking it."""


def _is_record(parameters: object) -> bool:
    return isinstance(parameters, type) and issubclass(parameters, Record)


def _record_schema(parameters: type[Record]) -> dict[str, Any]:
    """The kept schema of a record type (made the first time): callers copy or freeze it."""
    schema = _SCHEMAS.get(parameters)
    if schema is None:
        schema = _SCHEMAS[parameters] = record_schema(parameters)
    return schema


def _parameters_schema(parameters: Parameters) -> dict[str, Any]:
    if not _is_record(parameters):
        from agent_core import _pydantic_arguments

        return _pydantic_arguments.parameters_schema(parameters)  # type: ignore[arg-type]
    return copied(_record_schema(parameters))  # type: ignore[arg-type,no-any-return]


def tool_spec(tool: Tool) -> ToolSpec:
    """The name, description and JSON schema the model sees for ``tool`` (a copy to edit).

    A tool may carry its schema as data (a ``parameters_schema`` dict) instead of deriving it
    from ``parameters``: a tool whose real model is imported only when it is first called (a
    lazily loaded extension's) does; ``parameters`` then only needs to accept the arguments.
    """
    given = getattr(tool, "parameters_schema", None)
    schema = copied(given) if isinstance(given, dict) else _parameters_schema(tool.parameters)
    schema.pop("title", None)
    return ToolSpec(name=tool.name, description=tool.description, parameters=schema)


def spec_key(tool: Tool) -> tuple[object, ...] | None:
    """What ``tool``'s spec is made of (``None``: unknown, make it each time).

    The name, description, parameters type and the object its schema comes from (a record
    type itself; pydantic's core schema, replaced by ``model_rebuild``; a raw schema's
    ``json_schema``, replaced when the tool's server changes it). A spec is reused while this
    key is the same.
    """
    parameters = tool.parameters
    source: object | None = parameters
    if not _is_record(parameters):
        from agent_core import _pydantic_arguments

        source = _pydantic_arguments.schema_source(parameters)  # type: ignore[arg-type]
    if source is None:
        return None
    return (tool.name, tool.description, parameters, id(source), source)


def frozen_tool_spec(tool: Tool) -> ToolSpec:
    """:func:`tool_spec` with its schema frozen (deeply), to be shared: nobody may edit it.

    A record's frozen schema is made once per type and shared by every spec of it (no copy to
    edit is needed first)."""
    parameters = tool.parameters
    if _is_record(parameters) and not isinstance(getattr(tool, "parameters_schema", None), dict):
        frozen = _FROZEN_SCHEMAS.get(parameters)  # type: ignore[arg-type]
        if frozen is None:
            frozen = frozen_value(_record_schema(parameters))  # type: ignore[arg-type]
            _FROZEN_SCHEMAS[parameters] = frozen  # type: ignore[index]
        return ToolSpec(name=tool.name, description=tool.description, parameters=frozen)
    spec = tool_spec(tool)
    spec.parameters = frozen_value(spec.parameters)
    return spec


def validate_arguments(tool: Tool, call: ToolCall) -> tuple[Any | None, str | None]:
    """Validate a call's arguments. Returns (parsed args, None) or (None, error message).

    The message is one line the model can act on: ``Invalid arguments for tool read: offset:
    Expected `int`, got `str```. Keys the parameters do not name are ignored (unless they
    forbid unknown fields); JSON's lax forms are accepted (``"5"`` for 5, ``"true"``).
    """
    prefix = f"Invalid arguments for tool {call.name}: "
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
    parameters = tool.parameters
    try:
        if _is_record(parameters):
            return parameters.model_validate(call.arguments), None
        from agent_core import _pydantic_arguments

        return _pydantic_arguments.validated(parameters, call.arguments, prefix)  # type: ignore[arg-type]
    except RecordError as error:
        return None, one_line_record_error(error, prefix, root="arguments")
    except Exception as exc:  # noqa: BLE001 - a custom validator raising e.g. TypeError/KeyError
        return None, f"{prefix}{type(exc).__name__}: {exc}"


@dataclass
class ToolCallContext:
    """What ``before_tool_call`` sees (``args``: the validated instance of the tool's parameters)."""

    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: Any
    messages: list[Message]


@dataclass
class BeforeToolCallResult:
    """Returned by ``before_tool_call``: block with a reason, replace the arguments, or answer
    the call with ``result`` instead of running the tool (``after_tool_call`` still sees it)."""

    block: bool = False
    reason: str | None = None
    arguments: dict[str, Any] | None = None
    result: ToolResult | None = None
    is_error: bool = False


_UNSET: Any = object()


@dataclass
class AfterToolCallContext:
    """What ``after_tool_call`` sees (``args``: the validated instance of the tool's parameters)."""

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
            updated = ToolResult.model_validate(  # a hook's content is checked here
                {
                    "content": self.content,
                    "details": updated.details,
                    "terminate": updated.terminate,
                }
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
