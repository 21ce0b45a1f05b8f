"""A settings file's data checked against a settings record, with an error a user can act on.

``msgspec.convert`` checks the types, the choices (``Literal``) and the limits (``Meta(ge=0)``)
and names the first bad key. Around it:

- a key may be written in snake_case too (``reserve_tokens``): pydantic accepted that spelling
  (``populate_by_name``), so a file written that way keeps its meaning instead of being ignored;
- msgspec's ``Expected `int` >= 0 - at `$.compaction.reserveTokens``` becomes
  ``"compaction.reserveTokens": Expected `int` >= 0``, and a bad choice lists the good ones.

Nothing here runs when no settings file exists (the defaults are made, not converted).
"""

from __future__ import annotations

import json
import re
import types
from functools import cache
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

import msgspec

from agent_core.records import Record, RecordError, convert

R = TypeVar("R", bound=Record)

_PATH = re.compile(r" - at `\$(?P<path>[^`]*)`$")
_PART = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")


class SettingsInvalid(ValueError):
    """Data did not fit a settings record: ``"key.path": what is wrong`` (one line)."""


def validated(data: dict[str, Any], kind: type[R]) -> R:
    """``data`` (a settings file's object) as ``kind``; :class:`SettingsInvalid` names the key."""
    data = _camel_keys(data, kind)
    try:
        return convert(data, kind)
    except RecordError as error:
        raise SettingsInvalid(_problem(str(error), kind, data)) from None


def _problem(message: str, kind: type[Record], data: Any) -> str:
    """msgspec's message as ``"key.path": message`` (choices spelled out)."""
    found = _PATH.search(message)
    if found is None:
        return message
    text, parts = message[: found.start()], _named(_parts(found["path"]), kind, data)
    if text.startswith("Invalid enum value"):
        choices = _choices(_type_at(kind, parts))
        if choices:
            text += f": expected {choices}"
    key = ".".join(parts) or "(the whole object)"
    return f'"{key}": {text}'


def _parts(path: str) -> list[str]:
    """``.packages[2].source`` -> ``["packages", "2", "source"]`` (``[...]``: a dict's entry)."""
    return [name or index for name, index in _PART.findall(path)]


def _named(parts: list[str], kind: Any, data: Any) -> list[str]:
    """``parts`` with each ``...`` (msgspec does not say which entry of an object) replaced by
    the key of the first entry that does not convert."""
    named: list[str] = []
    for part in parts:
        if part == "..." and isinstance(data, dict):
            item = _type_at(kind, [*named, part])
            part = next((str(k) for k, v in data.items() if not _fits(v, item)), part)
        named.append(part)
        if isinstance(data, dict):
            data = data.get(part)
        elif isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        else:
            data = None
    return named


def _fits(value: Any, kind: Any) -> bool:
    try:
        convert(value, kind)
    except RecordError:
        return False
    return True


def _type_at(kind: Any, parts: list[str]) -> Any:
    """The type of the value at ``parts`` under ``kind`` (None if it cannot be followed)."""
    for part in parts:
        kind = _bare(kind)
        if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
            kind = next((f.type for f in _fields(kind) if f.encode_name == part), None)
        elif get_origin(kind) in (list, dict):
            kind = get_args(kind)[-1] if get_args(kind) else None
        else:
            return None
    return kind


def _choices(kind: Any) -> str:
    """A Literal's values as users write them: ``"a", "b" or "c"`` ("" for another type)."""
    kind = _bare(kind)
    if get_origin(kind) is not Literal:
        return ""
    *first, last = [json.dumps(value) for value in get_args(kind)]
    return f"{', '.join(first)} or {last}" if first else last


def _bare(kind: Any) -> Any:
    """``kind`` without ``Annotated`` metadata and without ``| None``."""
    while True:
        if get_origin(kind) is Annotated:
            kind = get_args(kind)[0]
            continue
        if get_origin(kind) in (Union, types.UnionType):
            options = [a for a in get_args(kind) if a is not type(None)]
            if len(options) == 1:
                kind = options[0]
                continue
        return kind


@cache
def _fields(kind: type[msgspec.Struct]) -> tuple[msgspec.structs.FieldInfo, ...]:
    return msgspec.structs.fields(kind)


@cache
def _renames(kind: type[Record]) -> tuple[tuple[str, str, type[Record] | None], ...]:
    """(snake_case name, camelCase key, the section it holds) of ``kind``'s fields."""
    out = []
    for info in _fields(kind):
        section = _bare(info.type)
        is_section = isinstance(section, type) and issubclass(section, Record)
        out.append((info.name, info.encode_name, section if is_section else None))
    return tuple(out)


def _camel_keys(data: dict[str, Any], kind: type[Record]) -> dict[str, Any]:
    """``data`` with snake_case keys of ``kind``'s fields spelled in camelCase (the camelCase
    key wins when both are there), in nested sections too; ``data`` itself is not changed."""
    out = dict(data)
    for name, key, section in _renames(kind):
        if name != key and name in out:
            value = out.pop(name)
            out.setdefault(key, value)
        if section is not None and isinstance(out.get(key), dict):
            out[key] = _camel_keys(out[key], section)
    return out


def non_defaults(record: Record) -> dict[str, Any]:
    """The camelCase dict of what ``record`` sets apart from its defaults (nested sections
    likewise; a section left at its defaults is left out), as a settings file would hold it."""
    default = type(record)()
    out: dict[str, Any] = {}
    for name, key, section in _renames(type(record)):
        value, unset = getattr(record, name), getattr(default, name)
        if value == unset:
            continue
        both_sections = section is not None and isinstance(unset, section)
        out[key] = non_defaults(value) if both_sections else msgspec.to_builtins(value)
    return out
