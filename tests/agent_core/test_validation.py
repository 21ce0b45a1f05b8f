"""Validation errors (pydantic's, a record's) on one line, located by their dotted paths."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from msgspec import Meta
from pydantic import BaseModel, ValidationError, model_validator

from agent_core import ToolArguments, one_line_record_error, one_line_validation_error
from agent_core.records import RecordError


class Item(BaseModel):
    old_text: str


class Args(BaseModel):
    path: str
    edits: list[Item]


class Whole(BaseModel):
    a: int = 0

    @model_validator(mode="before")
    @classmethod
    def refuse(cls, data: object) -> object:
        raise ValueError("nothing is accepted")


def _error(model: type[BaseModel], data: object) -> ValidationError:
    with pytest.raises(ValidationError) as info:
        model.model_validate(data)
    return info.value


def test_every_problem_named_by_its_dotted_location_on_one_line() -> None:
    error = _error(Args, {"edits": [{"old_text": 3}]})
    line = one_line_validation_error(error, "Invalid arguments for tool edit: ")
    assert line == (
        "Invalid arguments for tool edit: path: Field required; "
        "edits.0.old_text: Input should be a valid string"
    )
    assert "\n" not in line


def test_quoted_keys_for_settings_files() -> None:
    error = _error(Args, {"path": "p", "edits": "no"})
    line = one_line_validation_error(error, "Invalid settings in s.json: ", quote_keys=True)
    assert line == 'Invalid settings in s.json: "edits": Input should be a valid list'


def test_an_error_about_the_whole_value_uses_root() -> None:
    error = _error(Whole, {})
    line = one_line_validation_error(error, "Bad: ", root="arguments")
    assert line == "Bad: arguments: Value error, nothing is accepted"


# ------------------------------------------------------------------ records (msgspec)


class Edit(ToolArguments):
    old_text: str


class EditArgs(ToolArguments):
    path: str
    edits: Annotated[list[Edit], Meta(min_length=1)]


class Strict(ToolArguments, forbid_unknown_fields=True):
    n: int = 0

    def __post_init__(self) -> None:
        if self.n < 0:
            raise ValueError("n must not be negative,\n   not even a little")


def _record_line(kind: type[ToolArguments], data: object) -> str:
    with pytest.raises(RecordError) as info:
        kind.model_validate(data)
    line = one_line_record_error(info.value, "Bad: ", root="arguments")
    assert "\n" not in line
    return line


@pytest.mark.parametrize(
    ("kind", "data", "expected"),
    [
        (EditArgs, {"edits": [{"old_text": "x"}]}, "Bad: path: required field missing"),
        (
            EditArgs,
            {"path": "p", "edits": [{"old_text": 3}]},
            "Bad: edits.0.old_text: Expected `str`, got `int`",
        ),
        (EditArgs, {"path": "p", "edits": [{}]}, "Bad: edits.0.old_text: required field missing"),
        (EditArgs, [1, 2], "Bad: arguments: Expected `object`, got `array`"),
        (Strict, {"n": 1, "m": 2}, "Bad: m: unknown field (not accepted)"),
        (Strict, {"n": -1}, "Bad: arguments: n must not be negative, not even a little"),
    ],
)
def test_a_record_error_on_one_line_located_by_its_dotted_path(
    kind: type[ToolArguments], data: object, expected: str
) -> None:
    assert _record_line(kind, data) == expected


def test_a_record_error_is_clipped() -> None:
    class Pick(ToolArguments):
        what: Literal["a", "b"]

    line = _record_line(Pick, {"what": "z" * 100_000 + " - at `$.fake`"})
    assert line.startswith("Bad: what: Invalid enum value 'zzz") and line.endswith("…")
    assert len(line) < 320
