"""Presentation options of the TUI."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class TuiOptions:
    """Presentation options; tests inject fixed values so pictures are deterministic."""

    theme: str | None = None
    keymap: dict[str, str] = field(default_factory=dict)
    clock: Callable[[], float] = time.monotonic
    cwd_label: str | None = None
    session_label: str | None = None
    extended_keys: bool | None = None  # None: guess from the environment
    user_theme_dir: Path | None = None
    persist_theme: bool = True
    cursor_blink: bool = True
    warnings: list[str] = field(default_factory=list)
    cwd: Path | None = None  # shown until a deferred shell is ready
    history_path: Path | None = None  # prompt history (default: $PI_HOME/history)
    env: dict[str, str] | None = None  # for terminal detection (default: os.environ)
    startup_inputs: list[str] = field(default_factory=list)  # sent once ready (pi -r: /resume)
    background: Callable[[str], Awaitable[str]] | None = None  # "& prompt": run it in pi serve
