"""The JSON schema of a tool's parameters when they are a :class:`~agent_core.records.Record`.

msgspec describes a struct as ``{"$ref": "#/$defs/Name", "$defs": {...}}``; a tool's schema is
the object itself, so the top level is inlined (nested records stay in ``$defs``, as pydantic
put them, which every provider pi talks to accepts). Three touches keep it what pydantic said:
an enum of strings also says ``"type": "string"`` (Gemini's schema subset wants a type beside
``enum``), lists its values in the ``Literal``'s order (msgspec sorts them: the order is the
author's, ``pending, in_progress, completed``), and an object without required fields has no
``"required": []``.
"""

from __future__ import annotations

import typing
from typing import Any, Literal

import msgspec

__all__ = ["copied", "record_schema"]


def record_schema(kind: type[msgspec.Struct]) -> dict[str, Any]:
    """The object schema of ``kind``: its own properties at the top, no ``title``."""
    generated = msgspec.json.schema(kind)
    defs: dict[str, Any] = dict(generated.pop("$defs", {}))
    ref = str(generated.pop("$ref", ""))
    name = ref.rpartition("/")[2]
    schema = dict(defs[name]) if name in defs else generated
    schema.pop("title", None)
    if name in defs and f'"{ref}"'.encode() not in msgspec.json.encode(defs):
        del defs[name]  # referred to by no record (a recursive one keeps its definition)
    if defs:
        schema["$defs"] = defs
    enums: list[dict[str, Any]] = []
    _touched(schema, enums)
    if any(len(enum["enum"]) > 1 for enum in enums):  # (evaluating the hints again costs)
        literals: dict[frozenset[object], list[object]] = {}
        _literals(kind, literals, set())
        for enum in enums:
            enum["enum"] = literals.get(frozenset(enum["enum"]), enum["enum"])
    return schema


def _literals(kind: Any, found: dict[frozenset[object], list[object]], seen: set[type]) -> None:
    """Every ``Literal``'s values inside ``kind`` (its fields, nested records), in order."""
    origin = typing.get_origin(kind)
    if origin is Literal:
        found.setdefault(frozenset(typing.get_args(kind)), list(typing.get_args(kind)))
    elif origin is typing.Annotated:
        _literals(typing.get_args(kind)[0], found, seen)
    elif origin is not None:
        for arg in typing.get_args(kind):
            _literals(arg, found, seen)
    elif isinstance(kind, type) and issubclass(kind, msgspec.Struct) and kind not in seen:
        seen.add(kind)
        for hint in typing.get_type_hints(kind, include_extras=True).values():
            _literals(hint, found, seen)


def _touched(value: Any, enums: list[dict[str, Any]]) -> None:
    """Types string enums (collected in ``enums``), drops ``"required": []``."""
    if isinstance(value, dict):
        enum = value.get("enum")
        if isinstance(enum, list):
            enums.append(value)
            if "type" not in value and all(isinstance(item, str) for item in enum):
                value["type"] = "string"
        if value.get("required") == []:
            del value["required"]
        for item in value.values():
            _touched(item, enums)
    elif isinstance(value, list):
        for item in value:
            _touched(item, enums)


def copied(value: Any) -> Any:
    """A copy of a JSON value (dicts, lists, immutable scalars): what a deep copy does here,
    at a tenth of ``copy.deepcopy``'s cost."""
    if isinstance(value, dict):
        return {key: copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copied(item) for item in value]
    return value
