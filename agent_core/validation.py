"""Validation errors as one readable line (tool arguments, settings files).

Two sources: a record's (:class:`~agent_core.records.RecordError`, msgspec's one problem with
its JSON path) and pydantic's (every problem, each with its location). pydantic is not
imported here: only code that already has a pydantic error calls
:func:`one_line_validation_error`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError

# msgspec's message: "<problem>" or "<problem> - at `$.edits[0].old_text`".
_AT = " - at `$"
_INDEX = re.compile(r"\[(\d+)\]")
_NAMED = re.compile(r"^Object (?P<what>missing required|contains unknown) field `(?P<name>.*)`$")
PROBLEM_LIMIT = 300
"""Longest problem text (msgspec quotes a bad enum value: a megabyte of it helps nobody)."""


def one_line_record_error(error: ValueError, prefix: str, *, root: str = "value") -> str:
    """``prefix`` and the problem of a :class:`~agent_core.records.RecordError` (or msgspec's
    ``ValidationError``) as ``where: problem``; msgspec reports the first problem only.

    ``where`` is the dotted location of the bad field (``edits.0.old_text``), or ``root`` when
    the whole value is wrong: ``Invalid arguments for tool read: offset: Expected `int`, got
    `str```; a missing field is named as the location (``path: required field missing``).
    """
    text = str(error)
    at = text.rfind(_AT) if text.endswith("`") else -1
    problem, path = (text[:at], text[at + len(_AT) : -1]) if at >= 0 else (text, "")
    problem = " ".join(problem[: PROBLEM_LIMIT * 2].split())
    where = _INDEX.sub(r".\1", path).lstrip(".")
    named = _NAMED.match(problem)
    if named is not None:
        where = f"{where}.{named['name']}" if where else named["name"]
        problem = (
            "required field missing"
            if named["what"] == "missing required"
            else "unknown field (not accepted)"
        )
    if len(problem) > PROBLEM_LIMIT:
        problem = problem[: PROBLEM_LIMIT - 1] + "…"
    if len(where) > PROBLEM_LIMIT:
        where = "…" + where[-(PROBLEM_LIMIT - 1) :]
    return f"{prefix}{where or root}: {problem}"


def one_line_validation_error(
    error: ValidationError, prefix: str, *, quote_keys: bool = False, root: str = "value"
) -> str:
    """``prefix`` followed by every problem as ``where: message``, joined by ``"; "``.

    ``where`` is the dotted location of the bad field (``edits.0.old_text``), or ``root`` when
    the whole value is wrong. ``quote_keys`` writes it as ``"where"`` (JSON keys in a file).
    For example ``Invalid arguments for tool read: path: Field required; offset: Input should
    be greater than or equal to 1``.
    """
    problems = []
    for item in error.errors(include_url=False):
        where = ".".join(str(part) for part in item.get("loc", ())) or root
        if quote_keys:
            where = f'"{where}"'
        problems.append(f"{where}: {item.get('msg', 'invalid')}")
    return prefix + "; ".join(problems)
