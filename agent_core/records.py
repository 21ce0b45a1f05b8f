"""Records: the loop's typed data (messages, content blocks, events, tool arguments) on msgspec.

Why not pydantic (issue 25): on the seed one-shot pydantic was 30% of the process's CPU samples
(its import 13%, defining the ~150 models 8%, building their validators and schemas the rest)
and ~10 MiB. A :class:`Record` is a ``msgspec.Struct``, a C type: defining one costs
microseconds, and constructing one does not validate (pi's own code is type-checked by mypy).
Data from outside — a session file, an RPC command, a model's tool arguments — is validated by
:meth:`Record.model_validate` (``msgspec.convert``), which names the bad field in its error.

Python attributes are snake_case; the wire shape (JSON mode, RPC, session files) is camelCase.
A union member names itself with a class variable beside msgspec's tag (``type = "text"``,
``role = "user"``), so ``block.type`` reads as before and the wire dict carries it.

The method names follow pydantic's (``model_copy``, ``model_dump``, ``model_validate``): the
same operations under the names pi's code, its extensions and its tests already use.
"""

from __future__ import annotations

import copy
from typing import Any, Self, TypeVar

import msgspec

__all__ = ["Record", "RecordError", "convert", "field", "wire_dict"]

field = msgspec.field
"""A field's default factory: ``content: list[X] = field(default_factory=list)``."""


class RecordError(ValueError):
    """Data did not match a record's type; the message names the field (``at `$.path```)."""


class _RecordMeta(msgspec.StructMeta):
    """Every record's fields are keyword-only (msgspec's ``kw_only`` covers only the fields of
    the class that sets it): a subclass may add a required field after optional ones."""

    def __new__(
        mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **options: Any
    ) -> _RecordMeta:
        options.setdefault("kw_only", True)
        return super().__new__(mcls, name, bases, namespace, **options)


class Record(msgspec.Struct, metaclass=_RecordMeta, rename="camel", weakref=True):
    """Base of every record: keyword construction, camelCase on the wire, weak-referenceable."""

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Self:
        """A copy (a deep one with ``deep``) with ``update``'s fields replaced; not validated."""
        copied = copy.deepcopy(self) if deep else copy.copy(self)
        for name, value in (update or {}).items():
            msgspec.structs.force_setattr(copied, name, value)
        return copied

    def model_dump(
        self, *, mode: str = "python", by_alias: bool = False, exclude_none: bool = False
    ) -> dict[str, Any]:
        """The record as a dict: camelCase keys with ``by_alias``, ``None`` fields dropped with
        ``exclude_none`` (inside nested records too; a dict's own values are kept)."""
        del mode  # every value is JSON-ready already
        return _dumped(self, by_alias, exclude_none)  # type: ignore[no-any-return]

    @classmethod
    def model_validate(cls, data: Any) -> Self:
        """A record of this type from wire data (camelCase keys), validated: :class:`RecordError`
        says what is wrong. A record of this type is returned as it is."""
        if isinstance(data, cls):
            return data
        return convert(data, cls)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """The fields' Python names, in order."""
        return cls.__struct_fields__


T = TypeVar("T")


def convert(data: Any, kind: type[T] | Any) -> T:
    """``data`` (JSON-like: dicts, lists, strings, numbers) as ``kind``, validated."""
    try:
        return msgspec.convert(data, kind, strict=False)
    except msgspec.ValidationError as error:
        raise RecordError(str(error)) from None


def wire_dict(record: Record) -> dict[str, Any]:
    """The camelCase JSON-ready dict of a record, ``None`` fields dropped (nested too)."""
    return _dumped(record, True, True)  # type: ignore[no-any-return]


_Tag = tuple[str, object] | None
_Plan = tuple[_Tag, tuple[tuple[str, str], ...]]
_plans: dict[tuple[type, bool], _Plan] = {}


def _plan(kind: type[Record], by_alias: bool) -> _Plan:
    """A record type's (tag key and value, fields as (attribute, key)), computed once."""
    config = kind.__struct_config__
    tag: _Tag = (config.tag_field, config.tag) if config.tag_field else None
    keys = kind.__struct_encode_fields__ if by_alias else kind.__struct_fields__
    plan = (tag, tuple(zip(kind.__struct_fields__, keys, strict=True)))
    _plans[(kind, by_alias)] = plan
    return plan


def _dumped(value: Any, by_alias: bool, exclude_none: bool) -> Any:
    if isinstance(value, Record):
        tag, fields = _plans.get((type(value), by_alias)) or _plan(type(value), by_alias)
        out: dict[str, Any] = {tag[0]: tag[1]} if tag is not None else {}
        for name, key in fields:
            item = getattr(value, name)
            if item is None:
                if not exclude_none:
                    out[key] = None
                continue
            out[key] = item if type(item) in _SCALARS else _dumped(item, by_alias, exclude_none)
        return out
    if isinstance(value, list | tuple):
        return [item if type(item) in _SCALARS else _dumped(item, by_alias, exclude_none)
                for item in value]  # fmt: skip
    if isinstance(value, dict):
        return {key: item if type(item) in _SCALARS else _dumped(item, by_alias, exclude_none)
                for key, item in value.items()}  # fmt: skip
    try:  # a dataclass, another struct, an enum...: its plain form, as pydantic gave it
        return msgspec.to_builtins(value)
    except TypeError:
        return value  # left to the caller's JSON encoder (``default=str``...), as before


_SCALARS: frozenset[type] = frozenset({str, int, float, bool, type(None)})
