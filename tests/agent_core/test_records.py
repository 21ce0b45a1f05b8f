"""Records: keyword construction, camelCase on the wire, validated conversion, copies."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest

from agent_core.records import Record, RecordError, convert, field, wire_dict


class Inner(Record):
    long_name: str
    maybe: int | None = None


@dataclass
class Plain:
    snake_case: int


class Outer(Record, tag_field="type", tag="outer"):
    type: ClassVar[str] = "outer"
    optional_first: str | None = None
    inner: Inner  # type: ignore[misc]  # after an optional one: records are keyword-only (mypy sees no metaclass default)
    items: list[Inner] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    plain: Plain | None = None


def test_a_subclass_may_add_a_required_field_after_optional_ones() -> None:
    outer = Outer(inner=Inner(long_name="a"))
    assert outer.optional_first is None and outer.type == "outer"
    with pytest.raises(TypeError):
        Outer(None, Inner(long_name="a"))  # type: ignore[misc]


def test_the_wire_is_camel_case_with_none_fields_dropped_but_not_a_dicts_values() -> None:
    outer = Outer(
        inner=Inner(long_name="a"),
        items=[Inner(long_name="b", maybe=2)],
        data={"kept": None, "nested": {"also": None}},
        plain=Plain(snake_case=1),
    )
    assert wire_dict(outer) == {
        "type": "outer",
        "inner": {"longName": "a"},
        "items": [{"longName": "b", "maybe": 2}],
        "data": {"kept": None, "nested": {"also": None}},
        "plain": {"snake_case": 1},  # a dataclass's own keys, as pydantic gave them
    }
    assert outer.model_dump()["optional_first"] is None  # Python names, every field


def test_conversion_validates_and_names_the_field() -> None:
    wire = {"type": "outer", "inner": {"longName": "a"}, "items": [{"longName": 5}]}
    with pytest.raises(RecordError, match=r"\$\.items\[0\]\.longName"):
        Outer.model_validate(wire)
    with pytest.raises(RecordError, match="inner"):
        convert({"type": "outer"}, Outer)
    assert Outer.model_validate({"inner": {"longName": "x", "unknown": 1}}).inner.long_name == "x"
    same = Outer(inner=Inner(long_name="a"))
    assert Outer.model_validate(same) is same


def test_copies_shallow_deep_and_updated() -> None:
    outer = Outer(inner=Inner(long_name="a"), items=[Inner(long_name="b")])
    shallow, deep = outer.model_copy(), outer.model_copy(deep=True)
    assert shallow == outer == deep and shallow is not outer
    assert shallow.items is outer.items and deep.items is not outer.items
    updated = outer.model_copy(update={"optional_first": "set"})
    assert updated.optional_first == "set" and outer.optional_first is None


def test_a_record_is_weak_referenceable() -> None:
    inner = Inner(long_name="a")
    ref = weakref.ref(inner)
    assert ref() is inner
