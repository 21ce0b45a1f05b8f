"""Reading a settings file: JSON, an object, not absurdly nested; and merging two of them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


class SettingsError(Exception):
    """A settings file is unreadable or invalid; the message names the file and the key."""


MAX_DEPTH = 64
"""Deeper nesting than this is no settings file (and would exhaust the parser's stack)."""


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in ``path`` ({} when missing or blank); :class:`SettingsError` if bad."""
    try:
        # utf-8-sig: a byte-order mark (Windows editors) is not an error.
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise SettingsError(f"Cannot read settings file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise SettingsError(
            f"Settings file {path} is not UTF-8 text (byte {exc.start}): save it as UTF-8"
        ) from None
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"Settings file {path} is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from None
    except RecursionError:
        raise SettingsError(_too_deep(path)) from None
    if not isinstance(data, dict):
        raise SettingsError(
            f"Settings file {path} must contain a JSON object, not {type(data).__name__}"
        )
    if _depth(data) > MAX_DEPTH:
        raise SettingsError(_too_deep(path))
    return data


def _too_deep(path: Path) -> str:
    return f"Settings file {path} is nested more than {MAX_DEPTH} levels deep: not a settings file"


def _depth(data: Any) -> int:
    """How deeply ``data`` nests (iterative: a deep value must not exhaust the stack here)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, level = stack.pop()
        if level > MAX_DEPTH:
            return level
        deepest = max(deepest, level)
        children = value.values() if isinstance(value, dict) else value
        if isinstance(value, dict | list):
            stack.extend((child, level + 1) for child in children if isinstance(child, dict | list))
    return deepest


def merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """``override`` deep-merged over ``base`` (objects merge key by key; anything else replaces)."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = value
    return merged
