"""Pydantic validation errors as one readable line (tool arguments, settings files)."""

from __future__ import annotations

from pydantic import ValidationError


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
