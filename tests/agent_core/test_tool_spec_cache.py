"""tool_spec's schema cache: always what pydantic would say now, and never shared."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from agent_core import ToolBase, tool_spec
from agent_core.json_schema import json_schema_model


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
