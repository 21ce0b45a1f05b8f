"""An extension's tool on agent_core's ``Tool`` protocol, loaded or not yet.

Before its extension is loaded (its registrations came from the cache) the tool shows the model
its cached schema and accepts any arguments; its first call loads the extension, validates the
arguments against the real model and runs the real function. Either way it is a tool like pi's
own: the permission engine judges its calls (``read_only``, ``file_effects``), hooks see them.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, RootModel, ValidationError

from agent_core import AbortSignal, FileEffect, RecordError, ToolBase, ToolError, ToolResult
from agent_core.tool import OnToolUpdate
from agent_core.validation import one_line_validation_error

if TYPE_CHECKING:
    from pi_cli.shell.extensions.registry import ToolSpec


class AnyArguments(RootModel[dict[str, Any]]):
    """The arguments of a tool whose extension is not loaded yet (checked once it is)."""


Run = Callable[["ExtensionTool", str, BaseModel, AbortSignal, OnToolUpdate | None], Awaitable[Any]]
"""Runs the tool's function for a call (the runtime: on the extension's thread)."""


class ExtensionTool(ToolBase):
    """One tool of one extension.

    Args:
        extension: the extension's name.
        spec: the registered tool (``None`` while only its cached registration is known).
        cached: the cached registration (name, description, schema...).
        run: the runtime's way of calling the tool (loads the extension first if needed).
    """

    def __init__(
        self,
        extension: str,
        run: Run,
        spec: ToolSpec | None = None,
        cached: Mapping[str, Any] | None = None,
    ) -> None:
        self.extension = extension
        self._run = run
        self.spec = spec
        self.cached = dict(cached or {})
        if spec is not None:
            self.name, self.description = spec.name, spec.description
        else:
            self.name, self.description = str(self.cached["name"]), str(self.cached["description"])

    @property
    def parameters(self) -> type[BaseModel]:  # type: ignore[override]
        """The real model once loaded; any arguments before."""
        return self.spec.parameters if self.spec is not None else AnyArguments

    @property
    def parameters_schema(self) -> dict[str, Any] | None:
        """The cached schema while the extension is not loaded (agent_core's ``tool_spec``)."""
        return None if self.spec is not None else dict(self.cached.get("schema") or {})

    @property
    def label(self) -> str:
        """Its display name."""
        return self.spec.label if self.spec is not None else str(self.cached.get("label") or "")

    @property
    def read_only(self) -> bool:
        """It changes nothing (runs in every permission mode)."""
        if self.spec is not None:
            return self.spec.read_only
        return bool(self.cached.get("readOnly"))

    @property
    def guideline(self) -> str | None:  # type: ignore[override]
        """Its line in the system prompt's guidelines."""
        if self.spec is not None:
            return self.spec.guideline
        value = self.cached.get("guideline")
        return str(value) if value else None

    def title(self, args: Mapping[str, Any]) -> str:
        """The extension's own title, else the first short argument."""
        if self.spec is not None and self.spec.title is not None:
            try:
                return str(self.spec.title(dict(args)))[:200]
            except Exception:  # noqa: BLE001 - a title must never break a transcript
                pass
        return super().title(args)

    def file_effects(self, args: Mapping[str, Any]) -> list[FileEffect]:
        """The files a call reads or writes, as the extension says (loaded only)."""
        if self.spec is None or self.spec.file_effects is None or not isinstance(args, Mapping):
            return []
        try:
            effects = self.spec.file_effects(dict(args))
        except Exception:  # noqa: BLE001 - none known rather than a crash in the engine
            return []
        return [e for e in effects if isinstance(e, FileEffect)]

    async def execute(
        self,
        tool_call_id: str,
        args: Any,
        cancel: AbortSignal,
        on_update: OnToolUpdate | None = None,
    ) -> ToolResult:
        """Run it (its extension is loaded first if it is not yet)."""
        return as_result(await self._run(self, tool_call_id, args, cancel, on_update))


def validated(spec: ToolSpec, args: BaseModel) -> BaseModel:
    """``args`` as the real model (arguments accepted before the extension was loaded)."""
    if isinstance(args, spec.parameters):
        return args
    raw = args.root if isinstance(args, RootModel) else args.model_dump()
    try:
        return spec.parameters.model_validate(raw)
    except ValidationError as exc:
        raise ToolError(
            one_line_validation_error(
                exc, f"Invalid arguments for tool {spec.name}: ", root="arguments"
            )
        ) from None


def as_result(value: Any) -> ToolResult:
    """What a tool function returned, as a ``ToolResult``.

    Text; a ``ToolResult``; pi-ts's ``{"content": [...], "details": ...}``; anything else
    JSON-able is shown as JSON (``None``: an empty result).
    """
    if isinstance(value, ToolResult):
        return value
    if value is None:
        return ToolResult.of_text("")
    if isinstance(value, str):
        return ToolResult.of_text(value)
    if isinstance(value, dict) and isinstance(value.get("content"), list | str):
        try:
            return ToolResult.model_validate(
                {"content": value["content"], "details": value.get("details")}
            )
        except RecordError:
            pass
    try:
        return ToolResult.of_text(json.dumps(value, ensure_ascii=False, default=str))
    except (TypeError, ValueError):
        return ToolResult.of_text(str(value))
