"""Key bindings: ONE data table of defaults with ids, overridable from ``$PI_HOME/keybindings.json``.

``keybindings.json`` maps binding ids to comma-separated keys, e.g.
``{"pi.follow_up": "ctrl+enter,alt+enter,f2"}``; it is applied with ``App.set_keymap``.

Scopes: ``editor`` bindings live on the editor and are *priority* bindings, so they run before
the TextArea turns Enter into a newline; their ``check_action`` lets a key fall through when
the action does not apply (Tab completes unless a run is live...). ``app`` bindings work
everywhere on the main screen.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from textual.binding import Binding, BindingType

from pi_cli.shell.paths import pi_home

Scope = Literal["app", "editor"]


@dataclass(frozen=True)
class KeySpec:
    """One default binding."""

    id: str
    keys: str
    action: str
    description: str
    scope: Scope
    show: bool = False
    priority: bool = False


DEFAULT_KEYS: tuple[KeySpec, ...] = (
    KeySpec("pi.submit", "enter", "submit", "Send (steer while running)", "editor"),
    KeySpec("pi.follow_up", "ctrl+enter,alt+enter", "follow_up", "Queue follow-up", "editor"),
    KeySpec("pi.follow_up_tab", "tab", "tab", "Follow-up while running / complete", "editor"),
    KeySpec("pi.newline", "shift+enter,ctrl+j", "newline", "Newline", "editor"),
    KeySpec("pi.complete_next", "down", "complete_move(1)", "Next completion", "editor"),
    KeySpec("pi.complete_prev", "up", "complete_move(-1)", "Previous completion", "editor"),
    KeySpec("pi.abort", "escape", "escape", "Abort run / close menu", "editor"),
    KeySpec("pi.dequeue", "alt+up", "dequeue", "Edit queued messages", "editor"),
    KeySpec("pi.clear_or_quit", "ctrl+c", "clear_or_quit", "Clear editor, twice to quit", "app"),
    KeySpec("pi.quit_if_empty", "ctrl+d", "quit_if_empty", "Quit (empty editor)", "editor"),
    KeySpec("pi.toggle_tools", "ctrl+o", "toggle_tools", "Toggle tool output", "app", show=True),
    KeySpec("pi.toggle_thinking", "ctrl+t", "toggle_thinking", "Toggle thinking", "app", show=True),
    KeySpec("pi.toggle_todos", "ctrl+l", "toggle_todos", "Toggle todo list", "app", show=True),
    # Priority: the screen's own shift+tab (focus previous) must not take it first.
    KeySpec(
        "pi.cycle_mode",
        "shift+tab",
        "cycle_permission_mode",
        "Permission mode",
        "app",
        priority=True,
    ),
)


def bindings(scope: Scope) -> list[BindingType]:
    """Textual bindings for one scope, built from :data:`DEFAULT_KEYS`."""
    return [
        Binding(
            spec.keys,
            spec.action,
            spec.description,
            show=spec.show,
            id=spec.id,
            priority=scope == "editor" or spec.priority,
        )
        for spec in DEFAULT_KEYS
        if spec.scope == scope
    ]


def keybindings_path() -> Path:
    """Where the user's overrides live."""
    return pi_home() / "keybindings.json"


def _keys(value: object) -> str | None:
    """``"a, b"`` or ``["a", "b"]`` as ``"a,b"``; None for anything else (null, numbers, empty)."""
    if isinstance(value, str):
        parts = value.split(",")
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        parts = value
    else:
        return None
    keys = [k.strip() for k in parts]
    # An empty or "None" binding would silently take the key away (Enter could never send).
    return ",".join(keys) if keys and all(keys) else None


def load_user_keymap(path: Path | None = None) -> tuple[dict[str, str], str | None]:
    """(id -> keys overrides, warning or None). Unknown ids and bad values are reported, not fatal."""
    path = path or keybindings_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, ValueError) as exc:  # ValueError: bad JSON, and UnicodeDecodeError
        return {}, f"Ignoring {path}: {exc}"
    if not isinstance(data, dict):
        return {}, f"Ignoring {path}: expected a JSON object of binding id -> keys"
    known = {spec.id for spec in DEFAULT_KEYS}
    keymap: dict[str, str] = {}
    invalid: list[str] = []
    for binding_id, value in data.items():
        keys = _keys(value) if binding_id in known else None
        if keys is None:
            if binding_id in known:
                invalid.append(binding_id)
            continue
        keymap[binding_id] = keys
    problems = []
    if unknown := sorted(set(data) - known):
        problems.append(f"unknown ids {', '.join(unknown)}")
    if invalid:
        problems.append(
            f"ignored values of {', '.join(invalid)} (need a key string or a list of them)"
        )
    return keymap, (f"Key bindings in {path}: {'; '.join(problems)}" if problems else None)


def effective_keys(keymap: dict[str, str]) -> dict[str, list[str]]:
    """Binding id -> the keys that trigger it after overrides."""
    return {spec.id: keymap.get(spec.id, spec.keys).split(",") for spec in DEFAULT_KEYS}


def has_extended_keys(env: dict[str, str] | None = None) -> bool:
    """Whether the terminal likely speaks the kitty keyboard protocol (Ctrl+Enter, Shift+Enter).

    tmux never passes it through; kitty, WezTerm, foot and ghostty do.
    """
    env = dict(os.environ) if env is None else env
    if env.get("TMUX") or env.get("TERM", "").startswith(("screen", "tmux")):
        return False
    term, program = env.get("TERM", ""), env.get("TERM_PROGRAM", "")
    return (
        bool(env.get("KITTY_WINDOW_ID"))
        or term in ("xterm-kitty", "xterm-ghostty", "foot")
        or program in ("WezTerm", "ghostty")
    )


def _pretty(key: str) -> str:
    names = {"escape": "Esc"}
    return "+".join(
        names.get(p, p.capitalize() if len(p) > 1 else p.upper()) for p in key.split("+")
    )


def key_hints(keymap: dict[str, str], extended: bool) -> list[tuple[str, str]]:
    """(chords, meaning) pairs for the startup header, listing only chords that work here."""
    keys = effective_keys(keymap)
    needs_protocol = {"ctrl+enter", "shift+enter"}

    def chords(binding_id: str) -> str:
        usable = [k for k in keys[binding_id] if extended or k not in needs_protocol]
        return " / ".join(_pretty(k) for k in usable)

    follow = " / ".join(
        filter(None, [chords("pi.follow_up"), f"{chords('pi.follow_up_tab')} (while running)"])
    )
    return [
        (chords("pi.submit"), "send; while running: steer"),
        (follow, "queue a follow-up"),
        (chords("pi.newline"), "newline"),
        (chords("pi.abort"), "abort run, restore queue"),
        (chords("pi.dequeue"), "edit queued messages"),
        (chords("pi.clear_or_quit"), "clear, twice to quit"),
        (f"{chords('pi.toggle_tools')} / {chords('pi.toggle_thinking')}", "tool output / thinking"),
        ("/  @", "commands, files"),
    ]
