"""Tool parameters given as a raw JSON Schema (MCP tools) instead of pydantic fields.

:func:`json_schema_model` makes a pydantic model type that a :class:`~agent_core.tool.Tool` can
use as its ``parameters``: :func:`~agent_core.tool.tool_spec` sends the schema to the model as
it was given, and :func:`~agent_core.tool.validate_arguments` checks a call's arguments against
it with the ``jsonschema`` validator (the draft the schema names, 2020-12 by default). The
validated instance's ``root`` (and ``model_dump()``) is the argument object itself.

``jsonschema`` is imported only when such a model is made, so built-in tools never load it.
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import RootModel, model_validator
from pydantic_core import PydanticCustomError

MAX_PROBLEMS = 5
"""Validation problems reported per call (the model reads them; more is noise)."""


class SchemaError(ValueError):
    """A schema is not a usable JSON Schema for tool arguments (the message says why)."""


class JsonSchemaArguments(RootModel[dict[str, Any]]):
    """Arguments described by :attr:`json_schema`; ``root`` is the argument object."""

    json_schema: ClassVar[dict[str, Any]] = {"type": "object"}
    validator: ClassVar[Any] = None

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The schema exactly as the tool gave it (a copy: callers may edit it)."""
        return copy.deepcopy(cls.json_schema)

    @model_validator(mode="after")
    def _check(self) -> JsonSchemaArguments:
        validator = type(self).validator
        if validator is None:
            return self
        problems = sorted(validator.iter_errors(self.root), key=lambda e: list(e.path))
        if problems:
            text = "; ".join(_describe(error) for error in problems[:MAX_PROBLEMS])
            if len(problems) > MAX_PROBLEMS:
                text += f"; and {len(problems) - MAX_PROBLEMS} more"
            raise PydanticCustomError("json_schema", "{problems}", {"problems": text})
        return self


def _describe(error: Any) -> str:
    where = ".".join(str(part) for part in error.absolute_path)
    message = str(error.message)
    if len(message) > 300:
        message = message[:299] + "…"
    return f"{where}: {message}" if where else message


def checked_schema(schema: object) -> dict[str, Any]:
    """``schema`` as an object schema for tool arguments, checked against its metaschema.

    A schema without ``type`` gets ``"type": "object"`` (many servers omit it, and providers
    require it). Raises :class:`SchemaError` for anything else that is not an object schema.
    """
    if not isinstance(schema, Mapping):
        raise SchemaError(f"the input schema is a {type(schema).__name__}, not a JSON object")
    result = dict(schema)
    kind = result.setdefault("type", "object")
    if kind != "object":
        raise SchemaError(f'the input schema\'s type is {kind!r}; tool arguments need "object"')
    if not isinstance(result.get("properties", {}), Mapping):
        raise SchemaError('"properties" of the input schema is not an object')
    jsonschema = importlib.import_module("jsonschema")
    try:
        cls = jsonschema.validators.validator_for(result, default=jsonschema.Draft202012Validator)
        cls.check_schema(result)
    except jsonschema.exceptions.SchemaError as exc:
        raise SchemaError(f"the input schema is not valid JSON Schema: {exc.message}") from None
    except RecursionError:
        raise SchemaError("the input schema is nested too deeply") from None
    return result


def json_schema_model(name: str, schema: Mapping[str, Any]) -> type[JsonSchemaArguments]:
    """A parameters type for ``schema`` (checked with :func:`checked_schema` first)."""
    checked = checked_schema(schema)
    jsonschema = importlib.import_module("jsonschema")
    cls = jsonschema.validators.validator_for(checked, default=jsonschema.Draft202012Validator)
    namespace = {"json_schema": checked, "validator": cls(checked), "__module__": __name__}
    return type(f"{_identifier(name)}Arguments", (JsonSchemaArguments,), namespace)


def _identifier(name: str) -> str:
    cleaned = "".join(ch if ch.isalnum() else "_" for ch in name)
    return cleaned if cleaned[:1].isalpha() else f"T{cleaned}"
