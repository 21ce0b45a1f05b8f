"""Tool parameters given as a pydantic model: a Python extension's tool, an MCP tool's
:class:`~agent_core.json_schema.JsonSchemaArguments`, a test's.

Imported only when such a tool's schema is asked for or one of its calls is validated, so
the built-in tools (:class:`~agent_core.records.Record` parameters) never load pydantic.
"""

from __future__ import annotations

import weakref
from typing import Any

from pydantic import BaseModel, ValidationError

from agent_core._schemas import copied
from agent_core.validation import one_line_validation_error

# A pydantic model's schema is a function of its core schema: generating it takes ~0.3 ms a
# tool, and the loop asks for every tool's at every turn. Keyed by the class, checked against
# the core schema object (``model_rebuild`` replaces it), handed out as a copy (callers edit it).
_SCHEMAS: weakref.WeakKeyDictionary[type[BaseModel], tuple[object, dict[str, Any]]] = (
    weakref.WeakKeyDictionary()
)
_PYDANTIC_SCHEMA = BaseModel.model_json_schema.__func__  # type: ignore[attr-defined]


def parameters_schema(parameters: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema (a copy to edit)."""
    if getattr(parameters.model_json_schema, "__func__", None) is not _PYDANTIC_SCHEMA:
        return parameters.model_json_schema()  # its own method (a raw JSON Schema): no cache
    core = parameters.__dict__.get("__pydantic_core_schema__")
    cached = _SCHEMAS.get(parameters)
    if cached is None or core is None or cached[0] is not core:
        schema = parameters.model_json_schema()
        core = parameters.__dict__.get("__pydantic_core_schema__")
        if core is None:
            return schema
        cached = (core, schema)
        _SCHEMAS[parameters] = cached
    return copied(cached[1])  # type: ignore[no-any-return]


def schema_source(parameters: type[BaseModel]) -> object | None:
    """The object the model's schema is made from (``None``: unknown): pydantic's core schema
    (replaced by ``model_rebuild``) or a raw schema's ``json_schema``."""
    if getattr(parameters.model_json_schema, "__func__", None) is _PYDANTIC_SCHEMA:
        return parameters.__dict__.get("__pydantic_core_schema__")
    return getattr(parameters, "json_schema", None)


def validated(
    parameters: type[BaseModel], arguments: object, prefix: str
) -> tuple[BaseModel | None, str | None]:
    """(the arguments as the model, None), or (None, every problem on one line)."""
    try:
        return parameters.model_validate(arguments), None
    except ValidationError as error:
        return None, one_line_validation_error(error, prefix, root="arguments")
