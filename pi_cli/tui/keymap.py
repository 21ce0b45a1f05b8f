"""Key bindings: ONE data table of defaults with ids and scopes, overridable from ``keybindings.json``.

``$PI_HOME/keybindings.json`` maps binding ids to comma-separated keys, e.g.
``{"pi.follow_up": "ctrl+enter,alt+enter,f2"}``; it is applied with ``App.set_keymap``, so it
reaches every scope. ``/keys`` (or ``?`` / F1) lists the whole table with the keys in effect.

Scopes say where a binding is live, so the keys of one screen never leak into another:

* ``main`` — the main screen. These are *priority* bindings on the editor, which always has the
  focus there: they run before the TextArea turns Enter into a newline or PageUp into a cursor
  move, and they are gone as soon as a modal screen (picker, queue view, approval) is on top.
  ``check_action`` lets a key fall through when its action does not apply (Up moves the cursor
  unless the menu is open or the cursor is on the first line; Home scrolls only an empty editor).
* one scope per modal screen (``picker``, ``queue``, ``keys``): the screen's own ``BINDINGS``.
  A new modal (the permission approval) adds its rows with its own scope name here.

``key('name', ...)`` actions are the app's (the editor posts them, in key order, and
:mod:`key_actions` maps each name to its handler); the others run on the widget or screen
holding the binding.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from textual.binding import Binding, BindingType

from pi_cli.shell import pi_home

SCOPES: dict[str, str] = {
    "main": "Main screen (the editor keeps the focus)",
    "picker": "Pickers (/model, /resume, /tree, /theme, Ctrl+R history)",
    "queue": "Queue view (Alt+Q)",
    "keys": "This list",
    "approval": "Approval question (a tool call waits for you)",
    "trust": "Folder-trust question (at start)",
    "dialog": "A question from an extension or a tool",
    "search": "Transcript search (Ctrl+F)",
    "agent_view": "A background agent's thread (/agents)",
    "shell_view": "A background shell's live output (/bashes → View)",
}


@dataclass(frozen=True)
class KeySpec:
    """One default binding: ``id`` (for keybindings.json), keys, action, help text and scope."""

    id: str
    keys: str
    action: str
    description: str
    scope: str


K = KeySpec
DEFAULT_KEYS: tuple[KeySpec, ...] = (
    # -- the prompt
    K("pi.submit", "enter", "submit", "Send; while a run is live: steer", "main"),
    K("pi.follow_up", "ctrl+enter,alt+enter", "follow_up", "Queue a follow-up", "main"),
    K("pi.follow_up_tab", "tab", "tab", "Complete; while live: queue a follow-up", "main"),
    K("pi.newline", "shift+enter,ctrl+j", "newline", "Newline", "main"),
    # Up and Down: the first binding whose check passes acts (menu, then history, then the
    # cursor). A binding here replaces TextArea's own for the key, hence the explicit last one.
    K("pi.complete_prev", "up", "complete_move(-1)", "Previous completion (menu open)", "main"),
    K("pi.history_prev", "up", "history(-1)", "Earlier prompt (cursor on the first line)", "main"),
    K("pi.cursor_up", "up", "cursor_up", "Cursor up", "main"),
    K("pi.complete_next", "down", "complete_move(1)", "Next completion (menu open)", "main"),
    K("pi.history_next", "down", "history(1)", "Later prompt (cursor on the last line)", "main"),
    K("pi.cursor_down", "down", "cursor_down", "Cursor down", "main"),
    K("pi.history_search", "ctrl+r", "key('history_search')", "Search earlier prompts", "main"),
    K("pi.search", "ctrl+f", "key('search_transcript')", "Search the transcript", "main"),
    K("pi.redraw", "ctrl+l,f5", "key('redraw')", "Redraw the whole screen", "main"),
    K(
        "pi.external_editor",
        "ctrl+g",
        "key('external_editor')",
        "Edit the prompt in $EDITOR",
        "main",
    ),
    K("pi.undo", "ctrl+underscore", "undo", "Undo in the editor", "main"),
    # -- the run and the queue
    K("pi.abort", "escape", "escape", "Close menu / clear cursor / abort the run", "main"),
    K(
        "pi.interrupt",
        "ctrl+c",
        "key('interrupt')",
        "Copy selection / abort / clear, twice quits",
        "main",
    ),
    K("pi.dequeue", "alt+up", "dequeue", "Pull every queued message into the editor", "main"),
    K(
        "pi.queue_view",
        "alt+q",
        "key('queue_view')",
        "Queue view: edit, delete, reorder one",
        "main",
    ),
    K("pi.quit_if_empty", "ctrl+d", "quit_if_empty", "Quit (empty editor)", "main"),
    K("pi.delete_right", "ctrl+d", "delete_right", "Delete right (text in the editor)", "main"),
    K("pi.quit", "ctrl+q", "key('quit_app')", "Quit", "main"),
    K("pi.thinking_level", "alt+t", "key('cycle_thinking')", "Next thinking level", "main"),
    # -- the transcript
    K(
        "pi.scroll_page_up",
        "pageup,shift+pageup",
        "key('scroll_page', -1)",
        "Scroll up a page",
        "main",
    ),
    K(
        "pi.scroll_page_down",
        "pagedown,shift+pagedown",
        "key('scroll_page', 1)",
        "Scroll down",
        "main",
    ),
    K("pi.scroll_top", "ctrl+home", "key('scroll_edge', 0)", "Scroll to the top", "main"),
    K("pi.scroll_bottom", "ctrl+end", "key('scroll_edge', 1)", "Jump to the bottom", "main"),
    K("pi.scroll_top_empty", "home", "empty_key('top')", "Top (empty editor)", "main"),
    K("pi.scroll_bottom_empty", "end", "empty_key('bottom')", "Bottom (empty editor)", "main"),
    K("pi.block_up", "ctrl+up", "key('cursor_move', -1)", "Cursor to the previous block", "main"),
    K("pi.block_down", "ctrl+down", "key('cursor_move', 1)", "Cursor to the next block", "main"),
    K(
        "pi.toggle_tools",
        "ctrl+o",
        "key('toggle_tools')",
        "Expand/collapse tool output (cursor or all)",
        "main",
    ),
    K(
        "pi.toggle_turn",
        "alt+o",
        "key('toggle_turn')",
        "Collapse/expand the turn (cursor or last)",
        "main",
    ),
    K("pi.toggle_thinking", "ctrl+t", "key('toggle_thinking')", "Hide/show thinking", "main"),
    K("pi.toggle_todos", "alt+l", "key('toggle_todos')", "Hide/show the todo list", "main"),
    K("pi.keys", "f1", "key('show_keys')", "This list", "main"),
    K("pi.keys_question", "question_mark", "empty_key('keys')", "This list (empty editor)", "main"),
    K("pi.suspend", "ctrl+z", "app.suspend", "Suspend pi (fg resumes)", "main"),
    # -- modal screens
    K("picker.cancel", "escape", "cancel", "Close without choosing", "picker"),
    K("picker.down", "down", "move(1)", "Next entry", "picker"),
    K("picker.up", "up", "move(-1)", "Previous entry", "picker"),
    K("queue.close", "escape", "close", "Close the queue view", "queue"),
    K("queue.down", "down,j", "select(1)", "Next message", "queue"),
    K("queue.up", "up,k", "select(-1)", "Previous message", "queue"),
    K("queue.edit", "enter,e", "edit", "Edit the message (Enter saves, Esc cancels)", "queue"),
    K("queue.delete", "delete,d,x", "delete", "Delete the message", "queue"),
    K("queue.move_up", "alt+up,shift+up,K", "move(-1)", "Move it earlier", "queue"),
    K("queue.move_down", "alt+down,shift+down,J", "move(1)", "Move it later", "queue"),
    K("queue.promote", "s,p", "promote", "Make a follow-up a steer", "queue"),
    K("keys.close", "escape,q,f1,question_mark", "close", "Close this list", "keys"),
    K("approval.once", "y,1", "choose('allow_once')", "Allow once", "approval"),
    K("approval.session", "s,2", "choose('allow_session')", "Allow for this session", "approval"),
    K("approval.always", "a,3", "always", "Always (then p project / u user)", "approval"),
    K("approval.deny", "n,d,4", "choose('deny')", "Deny", "approval"),
    K("approval.message", "m", "deny_with_message", "Deny with a message", "approval"),
    K("approval.project", "p", "scope('project')", "Always: in the project settings", "approval"),
    K("approval.user", "u", "scope('user')", "Always: in the user settings", "approval"),
    K("approval.escape", "escape", "escape", "Deny", "approval"),
    K("dialog.cancel", "escape", "cancel", "Cancel the question (no answer)", "dialog"),
    K("dialog.yes", "y", "confirm(True)", "Yes (a yes/no question)", "dialog"),
    K("dialog.no", "n", "confirm(False)", "No (a yes/no question)", "dialog"),
    K(
        "dialog.send",
        "enter",
        "submit_ticked",
        "Send the ticked options (multiple choice)",
        "dialog",
    ),
    K("dialog.send_text", "ctrl+s", "submit_text", "Send the text (editor)", "dialog"),
    K("search.next", "down,f3", "step(1)", "Next match (Enter too)", "search"),
    K("search.previous", "up,shift+enter,shift+f3", "step(-1)", "Previous match", "search"),
    K("search.close", "escape", "close", "Close the search", "search"),
    K("shell_view.close", "escape,q", "close", "Close the view (the shell goes on)", "shell_view"),
    K("shell_view.stop", "x", "stop", "Stop the shell and everything it started", "shell_view"),
    K("agent_view.close", "escape", "close", "Back to the conversation (it goes on)", "agent_view"),
    K("agent_view.stop", "ctrl+x", "stop", "Stop the background agent", "agent_view"),
    K("trust.yes", "y", "answer(True)", "Trust this folder", "trust"),
    K("trust.no", "n,escape", "answer(False)", "Do not trust it", "trust"),
    # Shift+Tab, Claude Code's habit: the permission mode (shown in the footer).
    K("pi.cycle_mode", "shift+tab", "key('cycle_permission_mode')", "Next permission mode", "main"),
)
del K

# Bindings of modal scopes that must act before the focused widget takes the key (Enter would
# tick an option of a multiple choice; Esc would stay in a text box).
PRIORITY_IDS = frozenset({"dialog.cancel", "dialog.send", "agent_view.stop"})

# Chords legacy terminals (and tmux without extended-keys) cannot send.
NEEDS_PROTOCOL = frozenset({"ctrl+enter", "shift+enter"})


def bindings(scope: str) -> list[BindingType]:
    """Textual bindings for one scope, built from :data:`DEFAULT_KEYS`."""
    assert scope in SCOPES, scope
    return [
        Binding(
            spec.keys,
            spec.action,
            spec.description,
            show=False,
            id=spec.id,
            priority=scope in ("main", "picker") or spec.id in PRIORITY_IDS,
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
        if _extension_id(binding_id):
            continue  # an extension's key: the shell applies it (shell.extensions.keys())
        keys = _keys(value) if binding_id in known else None
        if keys is None:
            if binding_id in known:
                invalid.append(binding_id)
            continue
        keymap[binding_id] = keys
    problems = []
    if unknown := sorted(k for k in set(data) - known if not _extension_id(k)):
        problems.append(f"unknown ids {', '.join(unknown)}")
    if invalid:
        problems.append(
            f"ignored values of {', '.join(invalid)} (need a key string or a list of them)"
        )
    return keep_shared_keys(keymap), (
        f"Key bindings in {path}: {'; '.join(problems)}" if problems else None
    )


def _extension_id(binding_id: str) -> bool:
    """``<extension>.<name>``: an id in no scope of pi's own table."""
    scope, dot, _ = binding_id.partition(".")
    return bool(dot) and scope not in SCOPES and scope != "pi"


def keep_shared_keys(keymap: dict[str, str]) -> dict[str, str]:
    """``keymap`` plus, unchanged, the bindings that share a key with a remapped one.

    Textual drops every binding of a key when one of them is remapped (Up serves the menu,
    the history and the cursor): naming the others keeps them on their key, in their order.
    """
    out = dict(keymap)
    for spec in DEFAULT_KEYS:
        if spec.id not in keymap:
            continue
        for other in DEFAULT_KEYS:
            shared = set(other.keys.split(",")) & set(spec.keys.split(","))
            if other.id not in out and other.scope == spec.scope and shared:
                out[other.id] = other.keys
    return out


def effective_keys(keymap: dict[str, str]) -> dict[str, list[str]]:
    """Binding id -> the keys that trigger it after overrides."""
    return {spec.id: keymap.get(spec.id, spec.keys).split(",") for spec in DEFAULT_KEYS}


def has_extended_keys(env: dict[str, str] | None = None) -> bool:
    """Whether Ctrl+Enter / Shift+Enter reach pi: the kitty protocol, or tmux with extended-keys.

    pi asks for both the kitty protocol and xterm's modifyOtherKeys (see :mod:`terminal`); tmux
    forwards modified Enter only when its ``extended-keys`` option is on.
    """
    env = dict(os.environ) if env is None else env
    if env.get("TMUX"):
        return _tmux_extended_keys()
    if env.get("TERM", "").startswith("screen"):
        return False
    term, program = env.get("TERM", ""), env.get("TERM_PROGRAM", "")
    return (
        bool(env.get("KITTY_WINDOW_ID"))
        or term in ("xterm-kitty", "xterm-ghostty", "foot")
        or program in ("WezTerm", "ghostty")
    )


def _tmux_extended_keys() -> bool:
    try:
        out = subprocess.run(
            ["tmux", "show-options", "-gv", "extended-keys"],
            capture_output=True,
            text=True,
            timeout=0.5,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return out.strip() in ("on", "always")


def pretty(key: str) -> str:
    """``ctrl+enter`` -> ``Ctrl+Enter``; ``question_mark`` -> ``?``."""
    names = {"escape": "Esc", "question_mark": "?", "pageup": "PgUp", "pagedown": "PgDn"}
    names |= {"delete": "Del"}
    names |= {"underscore": "_", "enter": "Enter", "up": "↑", "down": "↓"}
    if key in names and len(names[key]) == 1 and not key.isalpha():
        return names[key]
    return "+".join(
        names.get(p, p.capitalize() if len(p) > 1 else p.upper() if p.islower() else f"Shift+{p}")
        for p in key.split("+")
    )


def chords(keymap: dict[str, str], binding_id: str, extended: bool = True) -> str:
    """The keys of ``binding_id`` as the user reads them (``Alt+Enter / Tab``)."""
    keys = effective_keys(keymap)[binding_id]
    return " / ".join(pretty(k) for k in keys if extended or k not in NEEDS_PROTOCOL)


def key_hints(keymap: dict[str, str], extended: bool) -> list[tuple[str, str]]:
    """(chords, meaning) pairs for the startup header, listing only chords that work here."""

    def c(binding_id: str) -> str:
        return chords(keymap, binding_id, extended)

    follow = " / ".join(filter(None, [c("pi.follow_up"), f"{c('pi.follow_up_tab')} (live)"]))
    return [
        (c("pi.submit"), "send; while running: steer"),
        (follow, "queue a follow-up"),
        (c("pi.newline"), "newline"),
        (
            f"{c('pi.abort')} / {c('pi.interrupt')}",
            "abort the run (idle Ctrl+C: clear, twice quits)",
        ),
        (f"{c('pi.dequeue')} / {c('pi.queue_view')}", "edit queued messages: all / one"),
        (f"PgUp PgDn / {c('pi.block_up')} {c('pi.block_down')}", "scroll / move the cursor"),
        (f"{c('pi.toggle_tools')} / {c('pi.toggle_turn')}", "expand tool output / collapse turn"),
        (f"↑ ↓ / {c('pi.history_search')}", "prompt history / search it"),
        (f"{c('pi.cycle_mode')} / {c('pi.thinking_level')}", "permission mode / thinking level"),
        (f"/  @  {c('pi.keys').split(' / ')[-1]}", "commands, files and images; every key"),
    ]
