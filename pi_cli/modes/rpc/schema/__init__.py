"""The RPC commands as data: one pydantic model per command (its fields, camelCase on the wire).

These models are the contract of pi's RPC protocol: the dispatcher
(:class:`~pi_cli.modes.rpc.connection.RpcConnection`) validates every command against the model
of its ``type`` before its handler runs (an unknown ``type`` has no model), and the server's API
description (``pi serve``'s ``/api/openapi.json``) is generated from the same models, so the
documentation cannot drift from what RPC mode accepts. Validation is strict (``"1"`` is no
integer, ``1`` no boolean); fields a model does not name are ignored, as pi's clients send extras.

A handler still reads the command as a dict (and may check more, e.g. that image data is
base64); the model guarantees the shapes.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from pi_cli.modes.rpc.schema.agents import AGENT_COMMANDS
from pi_cli.modes.rpc.schema.base import Command
from pi_cli.modes.rpc.schema.run import (
    Abort,
    AbortBash,
    AbortRetry,
    Bash,
    CycleModel,
    CycleThinkingLevel,
    FollowUp,
    GetAvailableModels,
    GetCommands,
    GetContext,
    GetLastAssistantText,
    GetMessages,
    GetSessionStats,
    GetState,
    Prompt,
    SetAutoCompaction,
    SetAutoRetry,
    SetFollowUpMode,
    SetModel,
    SetSteeringMode,
    SetThinkingLevel,
    Steer,
    Submit,
)
from pi_cli.modes.rpc.schema.schedules import SCHEDULE_COMMANDS
from pi_cli.modes.rpc.schema.session import (
    Clone,
    Compact,
    CyclePermissionMode,
    EditQueued,
    ExportHtml,
    ExtensionUiResponse,
    Fork,
    GetForkMessages,
    GetFrontState,
    GetQueue,
    GetSlashCommands,
    GetTree,
    MoveQueued,
    NavigateTree,
    NewSession,
    PromoteQueued,
    RemoveQueued,
    Restore,
    Rewind,
    RunExtensionKey,
    SetPermissionMode,
    SetSessionName,
    SwitchSession,
    TakeQueued,
)

__all__ = ["COMMAND_MODELS", "Command", "check_command", "command_schemas", "describe_error"]

COMMAND_MODELS: dict[str, type[Command]] = {
    model.model_fields["type"].annotation.__args__[0]: model  # type: ignore[union-attr]
    for model in (
        Prompt,
        Steer,
        FollowUp,
        Submit,
        Abort,
        Bash,
        AbortBash,
        GetState,
        GetMessages,
        SetModel,
        CycleModel,
        GetAvailableModels,
        SetThinkingLevel,
        CycleThinkingLevel,
        SetSteeringMode,
        SetFollowUpMode,
        SetAutoCompaction,
        SetAutoRetry,
        AbortRetry,
        GetSessionStats,
        GetContext,
        GetLastAssistantText,
        GetCommands,
        Compact,
        NewSession,
        SwitchSession,
        Fork,
        Clone,
        GetForkMessages,
        ExportHtml,
        SetSessionName,
        GetQueue,
        EditQueued,
        RemoveQueued,
        MoveQueued,
        PromoteQueued,
        TakeQueued,
        ExtensionUiResponse,
        Rewind,
        Restore,
        GetSlashCommands,
        GetTree,
        NavigateTree,
        SetPermissionMode,
        CyclePermissionMode,
        GetFrontState,
        RunExtensionKey,
        *AGENT_COMMANDS,
        *SCHEDULE_COMMANDS,
    )
}
"""Every command by its ``type``."""

_EXPECT = {
    "string_type": "(a string)",
    "bool_type": "(true or false)",
    "int_type": "(an integer)",
    "list_type": "must be a list",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "missing": "is required",
}


def check_command(command: dict[str, Any]) -> str | None:
    """Why ``command`` does not match its model (``None``: it does, or no model names it)."""
    model = COMMAND_MODELS.get(str(command.get("type")))
    if model is None:
        return None
    try:
        model.model_validate(command)
    except ValidationError as exc:
        return describe_error(exc, model)
    return None


def describe_error(exc: ValidationError, model: type[BaseModel]) -> str:
    """The first problem of ``exc`` in RPC's words: ``"message" (a string) is required``."""
    error = exc.errors(include_url=False)[0]
    loc = error["loc"]
    where = _where(loc)
    kind = error["type"]
    if kind == "literal_error":
        allowed = str(error.get("ctx", {}).get("expected", "")).replace("'", "")
        return f'"{where}" must be one of {allowed.replace(" or ", ", ")}'
    if kind == "missing" and len(loc) == 1:
        kind = _type_error_of(model, str(loc[0]))
    expect = _EXPECT.get(kind)
    if expect is None:
        return f'"{where}": {error["msg"]}'
    if expect.startswith(("must", "is")):
        return f'"{where}" {expect}'
    return f'"{where}" {expect} is required'


def _type_error_of(model: type[BaseModel], alias: str) -> str:
    """The type error a missing required field would have had (to word it the same)."""
    for name, field in model.model_fields.items():
        if alias in (name, field.alias):
            return {str: "string_type", bool: "bool_type", int: "int_type"}.get(
                field.annotation,  # type: ignore[arg-type]
                "missing",
            )
    return "missing"


_TYPE_TAGS = frozenset({"str", "int", "bool", "float", "none", "list", "dict"})


def _where(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, str) and (part in _TYPE_TAGS or "[" in part):
            continue  # a union member's tag, not a field
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "command"


def command_schemas() -> dict[str, dict[str, Any]]:
    """JSON Schema of every command model, by model name (for the API description)."""
    schemas: dict[str, dict[str, Any]] = {}
    for model in COMMAND_MODELS.values():
        schema = model.model_json_schema(by_alias=True, ref_template="#/components/schemas/{model}")
        for name, definition in schema.pop("$defs", {}).items():
            schemas[name] = definition
        schemas[model.__name__] = schema
    return schemas
