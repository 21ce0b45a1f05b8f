"""Permission modes (Claude Code's names) and how strict each is."""

from __future__ import annotations

from typing import Literal, get_args

Mode = Literal["default", "acceptEdits", "auto", "plan", "dontAsk", "bypassPermissions"]
MODES: tuple[Mode, ...] = get_args(Mode)
DEFAULT_MODE: Mode = "auto"
CYCLE: tuple[Mode, ...] = ("auto", "default", "acceptEdits", "plan")
"""What Shift+Tab / ``/permissions next`` cycles through (plus the start mode if outside it)."""

_ALIASES: dict[str, Mode] = {
    "yolo": "bypassPermissions",
    "bypass": "bypassPermissions",
    "bypasspermissions": "bypassPermissions",
    "accept-edits": "acceptEdits",
    "acceptedits": "acceptEdits",
    "dont-ask": "dontAsk",
    "dontask": "dontAsk",
    "default": "default",
    "auto": "auto",
    "plan": "plan",
}
_STRICTNESS: dict[Mode, int] = {
    "bypassPermissions": 0,
    "auto": 1,
    "acceptEdits": 2,
    "default": 3,
    "dontAsk": 4,
    "plan": 5,
}
MODE_DESCRIPTIONS: dict[Mode, str] = {
    "default": "asks before every edit and every bash command not proven read-only",
    "acceptEdits": "edits inside the workspace run; other bash commands ask",
    "auto": "edits inside the workspace run; bash runs without asking inside the sandbox",
    "plan": "read-only: no edits, only read-only bash commands",
    "dontAsk": "never asks: anything not allowed by a rule is denied",
    "bypassPermissions": "nothing is checked or asked",
}
MODE_CHOICES: tuple[str, ...] = (*MODES, "yolo")


class ModeError(ValueError):
    """An unknown mode name (the message lists the valid ones)."""


def parse_mode(text: str) -> Mode:
    """A mode from its name or an alias (``yolo``, ``accept-edits``...); raises :class:`ModeError`."""
    mode = _ALIASES.get(text.strip().lower())
    if mode is None:
        raise ModeError(f"Unknown permission mode {text!r}: use one of {', '.join(MODE_CHOICES)}")
    return mode


def stricter(candidate: Mode, than: Mode) -> bool:
    """Whether ``candidate`` lets less run without the user than ``than``."""
    return _STRICTNESS[candidate] > _STRICTNESS[than]


def next_mode(current: Mode, start: Mode) -> Mode:
    """The mode after ``current`` in the cycle (the start mode joins it if it is not in it)."""
    cycle = CYCLE if start in CYCLE else (*CYCLE, start)
    index = cycle.index(current) if current in cycle else -1
    return cycle[(index + 1) % len(cycle)]
