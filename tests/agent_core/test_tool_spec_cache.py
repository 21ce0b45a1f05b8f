"""tool_spec's schemas: a record's made once per type; a pydantic model's always what pydantic
would say now; never shared."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from msgspec import Meta
from pydantic import BaseModel, Field

import agent_core.tool
from agent_core import ToolArguments, ToolBase, tool_spec
from agent_core.json_schema import json_schema_model
from agent_core.tool import spec_key


class Args(BaseModel):
    """Arguments."""

    path: str = Field(description="where")


class Tool(ToolBase):
    name = "t"
    description = "a tool"
    parameters = Args

    async def execute(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - not run
        raise NotImplementedError


def fresh_schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    schema.pop("title", None)
    return schema


def test_the_same_schema_every_time_and_each_a_copy() -> None:
    first = tool_spec(Tool()).parameters
    assert first == fresh_schema(Args)
    first["properties"]["path"]["description"] = "edited by a caller"
    first.pop("required")
    assert tool_spec(Tool()).parameters == fresh_schema(Args)


def test_a_rebuilt_model_gives_its_new_schema() -> None:
    class Later(BaseModel):
        value: Ref  # defined below: the model is built later

    class Tool2(Tool):
        parameters = Later

    class Ref(BaseModel):
        n: int

    Later.model_rebuild(_types_namespace={"Ref": Ref})
    before = tool_spec(Tool2()).parameters
    assert before == fresh_schema(Later)

    class Ref(BaseModel):  # type: ignore[no-redef]
        n: int
        extra: str

    Later.model_rebuild(force=True, _types_namespace={"Ref": Ref})
    after = tool_spec(Tool2()).parameters
    assert after == fresh_schema(Later)  # whatever pydantic makes of the rebuilt model


def test_raw_json_schemas_are_read_from_the_tool_each_time() -> None:
    model = json_schema_model("m", {"type": "object", "properties": {"a": {"type": "string"}}})

    class Tool3(Tool):
        parameters = model

    assert tool_spec(Tool3()).parameters["properties"] == {"a": {"type": "string"}}
    model.json_schema = {"type": "object", "properties": {"b": {"type": "integer"}}}
    assert tool_spec(Tool3()).parameters["properties"] == {"b": {"type": "integer"}}


# ------------------------------------------------------------------ record parameters


class Step(ToolArguments):
    """One step."""

    state: Annotated[Literal["todo", "doing", "done"], Meta(description="where it is")]
    then: Annotated[list[Step] | None, Meta(description="steps after it")] = None


class Plan(ToolArguments):
    """A plan."""

    steps: Annotated[list[Step], Meta(min_length=1, description="the steps")]
    title: Annotated[str, Meta(max_length=80, description="its name")] = ""


class Nothing(ToolArguments):
    """No arguments."""


class PlanTool(Tool):
    parameters = Plan  # type: ignore[assignment]


def test_a_record_schema_is_the_object_inlined_with_nested_records_in_defs() -> None:
    schema = tool_spec(PlanTool()).parameters
    assert schema == {
        "description": "A plan.",
        "type": "object",
        "properties": {
            "steps": {
                "description": "the steps",
                "type": "array",
                "items": {"$ref": "#/$defs/Step"},
                "minItems": 1,
            },
            "title": {"description": "its name", "type": "string", "maxLength": 80, "default": ""},
        },
        "required": ["steps"],
        "$defs": {
            "Step": {
                "title": "Step",
                "description": "One step.",
                "type": "object",
                "properties": {
                    # the Literal's order (msgspec sorts), and a type beside the enum
                    "state": {
                        "description": "where it is",
                        "enum": ["todo", "doing", "done"],
                        "type": "string",
                    },
                    "then": {
                        "description": "steps after it",
                        "anyOf": [
                            {"type": "array", "items": {"$ref": "#/$defs/Step"}},
                            {"type": "null"},
                        ],
                        "default": None,
                    },
                },
                "required": ["state"],
            }
        },
    }


def test_a_recursive_top_record_keeps_its_definition() -> None:
    class StepTool(Tool):
        parameters = Step  # type: ignore[assignment]

    schema = tool_spec(StepTool()).parameters
    assert schema["properties"]["then"]["anyOf"][0]["items"] == {"$ref": "#/$defs/Step"}
    assert schema["$defs"]["Step"]["properties"] == schema["properties"]
    assert "title" not in schema


def test_no_arguments_no_required_list() -> None:
    class NoTool(Tool):
        parameters = Nothing  # type: ignore[assignment]

    assert tool_spec(NoTool()).parameters == {
        "description": "No arguments.",
        "type": "object",
        "properties": {},
    }


def test_a_record_schema_is_made_once_per_type_and_handed_out_as_copies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Once(ToolArguments):
        n: int = 1

    class OnceTool(Tool):
        parameters = Once  # type: ignore[assignment]

    made: list[type] = []
    real = agent_core.tool.record_schema
    monkeypatch.setattr(
        agent_core.tool, "record_schema", lambda kind: made.append(kind) or real(kind)
    )
    first = tool_spec(OnceTool()).parameters
    first["properties"].clear()
    second = tool_spec(OnceTool()).parameters
    assert second["properties"] == {"n": {"type": "integer", "default": 1}}
    assert made == [Once]
    assert spec_key(OnceTool()) == spec_key(OnceTool())


def test_a_records_frozen_schema_is_made_once_and_shared() -> None:
    from agent_core._frozen import FrozenMessageError
    from agent_core.tool import frozen_tool_spec

    class Shared(ToolArguments):
        path: Annotated[str, Meta(description="where")]

    class First(Tool):
        name = "first"
        parameters = Shared  # type: ignore[assignment]

    class Second(Tool):
        name = "second"
        parameters = Shared  # type: ignore[assignment]

    one, two = frozen_tool_spec(First()), frozen_tool_spec(Second())
    assert one.parameters is two.parameters and one.name != two.name
    assert one.parameters == tool_spec(First()).parameters  # what a copy to edit holds
    with pytest.raises(FrozenMessageError):
        one.parameters["properties"]["path"]["description"] = "edited"
    assert tool_spec(Second()).parameters["properties"]["path"]["description"] == "where"
