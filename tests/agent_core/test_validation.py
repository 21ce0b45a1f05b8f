"""``one_line_validation_error``: every problem on one line, located by its dotted path."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError, model_validator

from agent_core import one_line_validation_error


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
